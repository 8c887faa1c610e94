/** tablehost's TypeScript SDK: everything but the Node gRPC transport (`@tablehost/sdk/node`), so a browser bundle needs no Node module. */
export * from "./codec.js";
export * from "./transport.js";
export * from "./messages.js";
export * from "./lobby.js";
export * from "./session.js";
export * from "./bots.js";
export * from "./record.js";
export { WebTransport } from "./web.js";
export * from "./load.js";
