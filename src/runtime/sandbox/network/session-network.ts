/**
 * The network of one session's confined commands when the user allowed
 * hosts: the session's filtering proxy (in the agent, listening on
 * nothing) and the carriers of its running commands, each made with the
 * command and ended with it, all ended with the session. Loaded with the
 * first command that needs it.
 * @module
 */
import path from "node:path";
import { processTempDirectory } from "../../process/process-temp.ts";
import { createFilteringProxy } from "../proxy/filtering-proxy.ts";
import { openCarrier, type CarrierPipes } from "./carrier-pipes.ts";
import { forwarderProgram } from "./forwarder.ts";
import type { SandboxNetwork } from "./sandbox-network.ts";

/** A session's network for confined commands: its proxy and every carrier open. */
export interface SessionNetwork {
  network: SandboxNetwork;
  /** Ends every carrier and every connection through the proxy. */
  close(): void;
}

/** The network of a session whose commands may reach `allowHosts`. */
export function startSessionNetwork(allowHosts: readonly string[]): SessionNetwork {
  const proxy = createFilteringProxy({ allowHosts });
  const folder = path.join(processTempDirectory(), "carriers");
  const open = new Set<CarrierPipes>();
  let closed = false;
  return {
    network: {
      carriers: folder,
      // In the agent's temp folder, which confined commands may write anyway: the forwarder gets no more than they have.
      forwarder: forwarderProgram(path.join(processTempDirectory(), "forwarder-cache")),
      async openCarrier() {
        if (closed) throw new Error("the session is closed");
        let carrier: CarrierPipes | undefined;
        carrier = await openCarrier(folder, proxy, () => void (carrier && open.delete(carrier)));
        open.add(carrier);
        return carrier;
      },
    },
    close() {
      closed = true;
      for (const carrier of [...open]) carrier.close();
      proxy.close();
    },
  };
}

