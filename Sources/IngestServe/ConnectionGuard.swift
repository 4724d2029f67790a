import Foundation
import HTTPTypes
import IngestReadAPI
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Watches one connection between the HTTP decoder and Hummingbird:
///
/// - **A request head must come in time.** A new connection has
///   `headerTimeout` to send a complete request head, and a kept-alive one
///   `idleTimeout` after each answer; then it is closed. Without it, 1,000
///   idle connections stayed open until the file-descriptor limit shut
///   every client out.
/// - **A request the decoder refuses** (an over-long line, invalid bytes, a
///   NUL) gets a 400 with `{"error": …}` like every other refusal, where
///   Hummingbird sends one with an empty body, and the connection closes.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headerTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(headerTimeout: TimeAmount, idleTimeout: TimeAmount) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(context, after: headerTimeout)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(context, after: idleTimeout) }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        deadline?.cancel()
        var body = JSONWriter(capacity: 128)
        body.object { $0.field("error", "the request cannot be read as HTTP (\(Self.reason(parse))): nothing was answered") }
        let head = HTTPResponse(status: .badRequest, headerFields: [
            .contentType: "application/json; charset=utf-8", .contentLength: String(body.bytes.count), .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body.bytes))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    private func arm(_ context: ChannelHandlerContext, after timeout: TimeAmount) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    /// What the decoder found, for the client.
    static func reason(_ error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow: "headers too long"
        case .invalidURL, .invalidPath: "not a valid request target"
        case .invalidCharactersUsed, .invalidHeaderToken, .invalidConstant: "characters HTTP does not allow"
        default: "malformed request"
        }
    }
}
