"""Services of unary requests (answered once, or with a server stream)
whose requests are parsed by us, not inside gRPC: bytes that are not the
method's request message end the call with INVALID_ARGUMENT and a message
that says so, where gRPC's own deserializer would fail it as an INTERNAL
error of the server."""

from __future__ import annotations

from typing import Any, AsyncIterator, Awaitable, Callable

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass
from grpc import aio

Handler = Callable[[Any, aio.ServicerContext], Awaitable[Message]]
StreamHandler = Callable[[Any, aio.ServicerContext], AsyncIterator[Message]]


def add_unary_service(server: aio.Server, service: ServiceDescriptor, servicer: object) -> None:
    """Serve every method of `service` (each takes one request; it may answer
    with a stream) from the servicer's method of the same name, each request
    parsed by `_parsing`."""
    handlers = {}
    for method in service.methods:
        if method.client_streaming:
            raise ValueError(f"{service.full_name}.{method.name} takes a stream; only unary requests are served here")
        request_class = GetMessageClass(method.input_type)
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _parsing_stream(request_class, getattr(servicer, method.name)),
                request_deserializer=None,
                response_serializer=_serialize,
            )
            continue
        handlers[method.name] = grpc.unary_unary_rpc_method_handler(
            _parsing(request_class, getattr(servicer, method.name)),
            request_deserializer=None,
            response_serializer=_serialize,
        )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service.full_name, handlers),))


def _parsing(request_class: type[Message], handler: Handler) -> Callable[[bytes, aio.ServicerContext], Awaitable[Message]]:
    async def parse_then_handle(data: bytes, context: aio.ServicerContext) -> Message:
        try:
            request = request_class.FromString(data)
        except (DecodeError, RecursionError, ValueError):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"{len(data)} bytes that are not a {request_class.DESCRIPTOR.full_name}")
        return await handler(request, context)

    return parse_then_handle


def _parsing_stream(request_class: type[Message],
                    handler: StreamHandler) -> Callable[[bytes, aio.ServicerContext], AsyncIterator[Message]]:
    async def parse_then_stream(data: bytes, context: aio.ServicerContext) -> AsyncIterator[Message]:
        try:
            request = request_class.FromString(data)
        except (DecodeError, RecursionError, ValueError):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"{len(data)} bytes that are not a {request_class.DESCRIPTOR.full_name}")
        async for message in handler(request, context):
            yield message

    return parse_then_stream


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()
