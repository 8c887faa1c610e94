"""Services of unary requests (answered once, or with a server stream)
whose requests are parsed by us, not inside gRPC: bytes that are not the
method's request message end the call with INVALID_ARGUMENT and a message
that says so, where gRPC's own deserializer would fail it as an INTERNAL
error of the server.

Each method is registered as taking a request stream, so that its handler
starts as the call opens rather than once its request has arrived: a call
whose request does not come in time (the guard's request_timeout_s, by
default REQUEST_TIMEOUT_S) ends DEADLINE_EXCEEDED
(a client holding calls open without sending them held memory for as long
as it liked), and a `CallGuard` (the front door's quotas) counts every call
against its client before anything else is done for it. On the wire a unary
call is one message and a half-close either way: clients see no
difference."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any, AsyncIterator, Awaitable, Callable, Protocol

import grpc
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass
from grpc import aio

Handler = Callable[[Any, aio.ServicerContext], Awaitable[Message]]
StreamHandler = Callable[[Any, aio.ServicerContext], AsyncIterator[Message]]

# A call's request must arrive this soon after the call opens.
REQUEST_TIMEOUT_S = 10.0
# The client of the call being handled, as the guard named it.
CLIENT: contextvars.ContextVar[str] = contextvars.ContextVar("client", default="")


class Refused(Exception):
    """A call the guard refuses, with its status and reason."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


class CallGuard(Protocol):
    """What stands at the door of every call: who it is from, and whether
    that client may make it (each may raise Refused)."""

    request_timeout_s: float

    def client_of(self, context: aio.ServicerContext) -> str: ...

    def hold(self, client: str) -> None:
        """Count a call whose request has not arrived yet."""

    def release(self, client: str) -> None: ...

    def spend(self, client: str, method: str) -> None:
        """Count a call of `method` against the client's rate."""


def add_unary_service(server: aio.Server, service: ServiceDescriptor, servicer: object,
                      guard: CallGuard | None = None) -> None:
    """Serve every method of `service` (each takes one request; it may answer
    with a stream) from the servicer's method of the same name, each request
    read in time and parsed here, each call counted by
    `guard` first; the handler finds its client in CLIENT."""
    handlers = {}
    for method in service.methods:
        if method.client_streaming:
            raise ValueError(f"{service.full_name}.{method.name} takes a stream; only unary requests are served here")
        handler = getattr(servicer, method.name)
        if method.server_streaming:
            handlers[method.name] = grpc.stream_stream_rpc_method_handler(
                _streaming(method, handler, guard), request_deserializer=None, response_serializer=_serialize)
        else:
            handlers[method.name] = grpc.stream_unary_rpc_method_handler(
                _answering(method, handler, guard), request_deserializer=None, response_serializer=_serialize)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service.full_name, handlers),))


def _answering(method: MethodDescriptor, handler: Handler,
               guard: CallGuard | None) -> Callable[[AsyncIterator[bytes], aio.ServicerContext], Awaitable[Message]]:
    request_class = GetMessageClass(method.input_type)

    async def answer(requests: AsyncIterator[bytes], context: aio.ServicerContext) -> Message:
        request = await _admitted(method, request_class, requests, context, guard)
        return await handler(request, context)

    return answer


def _streaming(method: MethodDescriptor, handler: StreamHandler,
               guard: CallGuard | None) -> Callable[[AsyncIterator[bytes], aio.ServicerContext], AsyncIterator[Message]]:
    request_class = GetMessageClass(method.input_type)

    async def stream(requests: AsyncIterator[bytes], context: aio.ServicerContext) -> AsyncIterator[Message]:
        request = await _admitted(method, request_class, requests, context, guard)
        async for message in handler(request, context):
            yield message

    return stream


async def _admitted(method: MethodDescriptor, request_class: type[Message], requests: AsyncIterator[bytes],
                    context: aio.ServicerContext, guard: CallGuard | None) -> Message:
    """The call's request, once its client is known and allowed the call
    and its bytes have come and parse; otherwise the call is aborted."""
    client = ""
    try:
        if guard is not None:
            client = guard.client_of(context)
            guard.hold(client)
        timeout_s = guard.request_timeout_s if guard is not None else REQUEST_TIMEOUT_S
        try:
            data = await asyncio.wait_for(anext(requests, None), timeout_s)
        except TimeoutError:
            raise Refused(grpc.StatusCode.DEADLINE_EXCEEDED,
                          f"no request within {timeout_s:g} s of the call opening") from None
        finally:
            if guard is not None:
                guard.release(client)
        if data is None:
            raise Refused(grpc.StatusCode.INVALID_ARGUMENT, "the call ended without its request")
        if guard is not None:
            guard.spend(client, method.name)
    except Refused as refused:
        await context.abort(refused.code, refused.details)
    assert data is not None  # refused above otherwise
    try:
        request = request_class.FromString(data)
    except (DecodeError, RecursionError, ValueError):
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                            f"{len(data)} bytes that are not a {request_class.DESCRIPTOR.full_name}")
    CLIENT.set(client)
    return request


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()
