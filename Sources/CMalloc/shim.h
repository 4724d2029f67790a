// glibc's allocator settings (mallopt), which Swift's Glibc module leaves
// out: ingest-serve keeps its large answer buffers in the heap
// (AnswerBufferAllocation).
#include <malloc.h>
