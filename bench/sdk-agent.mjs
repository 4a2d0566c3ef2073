// A second floor: the smallest agent built on @agentclientprotocol/sdk.
// acp-edge minus this is the start-up cost of acp-edge's own code.
import * as acp from "@agentclientprotocol/sdk";
import { Readable, Writable } from "node:stream";

acp
  .agent({ name: "sdk-floor" })
  .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: 1, agentCapabilities: {}, authMethods: [] }))
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
