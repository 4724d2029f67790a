import CMalloc

/// Where the answers' buffers come from. An answer of 100 KB and more (`q=p`,
/// `q=ip` for an item sold in hundreds of pharmacies) is built and copied in
/// buffers above glibc's first mmap threshold (128 KiB, then moving with what
/// was freed): each was mapped, faulted in page by page and unmapped again per
/// request, and the unmaps' TLB shootdowns stalled the other threads (page
/// faults and `munmap` were a quarter of the server's samples under `q=p`).
/// With a fixed threshold of 16 MiB such buffers are reused from the heap;
/// 32 MiB of free heap may stay before it is given back.
enum AnswerBufferAllocation {
    static let mmapThreshold: Int32 = 16 << 20
    static let trimThreshold: Int32 = 32 << 20

    /// Once, before the server starts its threads. mallopt's refusal (0)
    /// leaves glibc's defaults, which are correct, only slower: ignored.
    static func keepLargeBuffersInTheHeap() {
        _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold)
        _ = mallopt(M_TRIM_THRESHOLD, trimThreshold)
    }
}
