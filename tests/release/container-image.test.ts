/**
 * The Dockerfile, built with podman on a local base (scripts/container-local-base.sh,
 * since base images cannot always be pulled) from release/acp-edge.mjs. Containers
 * may not be startable where this runs, so the image's exported filesystem is
 * run in a chroot as the image's user, with the image's entrypoint, command and
 * environment: /healthz answers (through the image's own HEALTHCHECK command too),
 * a WebSocket turn works, SIGTERM exits 0 and the session stays in the volume, and
 * a token file mounted as a secret is honoured.
 * Needs root, podman, chroot and apt-get; skipped with the reason otherwise.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chownSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, ROOT, type Launcher, type Sandbox } from "../helpers/agent-process.ts";
import { checkServeTurn } from "../helpers/artifact-checks.ts";
import { bearer, startServe } from "../helpers/serve-process.ts";

const BASE = "localhost/acp-edge-base:test";
const IMAGE = "localhost/acp-edge:test";

function missing(): string | undefined {
  if (process.getuid?.() !== 0) return "not root (chroot and podman storage need it)";
  for (const tool of ["podman", "chroot", "apt-get", "dpkg-deb"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} is not installed (apt-get install podman)`;
  }
  return undefined;
}
const skipReason = missing();
if (skipReason) console.warn(`container image checks skipped: ${skipReason}`);

interface ImageConfig {
  User: string;
  Env: string[];
  Entrypoint: string[];
  Cmd: string[];
  WorkingDir: string;
  ExposedPorts: Record<string, unknown>;
  Volumes: Record<string, unknown>;
  StopSignal?: string;
  Healthcheck?: { Test: string[] };
}

function run(command: string, args: string[], what: string): string {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

describe.skipIf(skipReason !== undefined)("container image (Dockerfile, podman, run in a chroot)", () => {
  let sandbox: Sandbox;
  let rootfs: string;
  let config: ImageConfig;
  let asImageUser: Launcher;
  let imageEnv: Record<string, string>;

  beforeAll(() => {
    sandbox = makeSandbox();
    run(join(ROOT, "scripts", "container-local-base.sh"), [BASE], "building the local base");
    run("npm", ["run", "--silent", "build:single"], "npm run build:single");
    run("podman", ["build", "--quiet", "--format", "docker", "--build-arg", `RUNTIME_BASE=${BASE}`, "--build-arg", "APP=from-release", "-t", IMAGE, "."], "podman build");
    const inspected = JSON.parse(run("podman", ["image", "inspect", IMAGE], "podman image inspect"))[0];
    // podman reports the Docker-format HEALTHCHECK next to Config rather than inside it.
    config = { ...inspected.Config, Healthcheck: inspected.Config.Healthcheck ?? inspected.Healthcheck };
    rootfs = join(sandbox.root, "rootfs");
    mkdirSync(rootfs);
    const container = run("podman", ["create", IMAGE], "podman create").trim();
    try {
      run("sh", ["-c", `podman export "$1" | tar -x -C "$2"`, "export", container, rootfs], "podman export");
    } finally {
      spawnSync("podman", ["rm", container]);
    }
    const [uid, gid] = config.User.split(":");
    asImageUser = { command: "chroot", args: [`--userspec=${uid}:${gid ?? uid}`, rootfs, ...config.Entrypoint], cwd: sandbox.root };
    imageEnv = Object.fromEntries(config.Env.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
  }, 180_000);

  afterAll(() => {
    spawnSync("podman", ["rmi", "--force", IMAGE, BASE]);
    sandbox?.cleanup();
  });

  test("runs as a non-root user, serves on 0.0.0.0:8711 by default, keeps its home in a volume", () => {
    expect(config.User).toBe("65532:65532");
    expect(config.Entrypoint).toEqual(["/nodejs/bin/node", "/app/acp-edge.mjs"]);
    expect(config.Cmd).toEqual(["agent", "serve", "--host", "0.0.0.0", "--port", "8711", "--allow-remote"]);
    expect(Object.keys(config.ExposedPorts)).toEqual(["8711/tcp"]);
    expect(imageEnv.ACP_EDGE_HOME).toBe("/data");
    expect(Object.keys(config.Volumes)).toEqual(["/data"]);
    expect(config.StopSignal).toBe("SIGTERM");
    expect(config.Healthcheck?.Test[0]).toBe("CMD");
    const data = statSync(join(rootfs, "data"));
    expect({ uid: data.uid, gid: data.gid, empty: run("ls", ["-A", join(rootfs, "data")], "ls").trim() }).toEqual({ uid: 65532, gid: 65532, empty: "" });
  });

  test("as the image's user: /healthz, a WebSocket turn, SIGTERM exits 0, the session stays in /data", async () => {
    // The image's command with the port left to the system (--port 0 comes first in the checks),
    // the faux model, and the token from ACP_EDGE_TOKEN as a deployment would pass it.
    const args = config.Cmd.slice(2).filter((arg, i, all) => arg !== "--port" && all[i - 1] !== "--port");
    mkdirSync(join(rootfs, "srv", "project"), { recursive: true });
    await checkServeTurn(asImageUser, sandbox, "answered from the container image", {
      args: [...args, "--model", "faux/script"],
      env: { ...imageEnv },
      hostHome: join(rootfs, "data"),
      cwd: "/srv/project",
      scriptPath: (hostPath) => {
        run("cp", [hostPath, join(rootfs, "srv", "script.json")], "copying the script");
        run("chmod", ["0644", join(rootfs, "srv", "script.json")], "chmod");
        return "/srv/script.json";
      },
    });
    const sessions = statSync(join(rootfs, "data", "sessions"));
    expect(sessions.uid).toBe(65532);
  });

  test("the image's HEALTHCHECK command succeeds against a running server and fails without one", async () => {
    const check = config.Healthcheck!.Test.slice(1);
    const down = spawnSync("chroot", ["--userspec=65532:65532", rootfs, ...check.map((a) => a.replace(":8711/", ":9/"))]);
    expect(down.status).toBe(1);
    const server = await startServe(asImageUser, sandbox, {
      args: ["--host", "0.0.0.0", "--allow-remote", "--model", "faux/echo"],
      env: { ...imageEnv },
    });
    try {
      const port = new URL(server.url).port;
      // The command as written targets 8711; the check runs it against the port this server got.
      const up = spawnSync("chroot", ["--userspec=65532:65532", rootfs, ...check.map((a) => a.replace(":8711/", `:${port}/`))]);
      expect(up.status).toBe(0);
    } finally {
      expect(await server.stop("SIGTERM")).toBe(0);
    }
  });

  test("a token in a mounted secret file (--token-file) is the one the server accepts", async () => {
    const secret = "secret-file-token-0123456789abcdef";
    mkdirSync(join(rootfs, "run", "secrets"), { recursive: true });
    const file = join(rootfs, "run", "secrets", "acp-edge-token");
    writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    chownSync(file, 65532, 65532);
    const server = await startServe(asImageUser, sandbox, {
      args: ["--host", "0.0.0.0", "--allow-remote", "--token-file", "/run/secrets/acp-edge-token", "--model", "faux/echo"],
      env: { ...imageEnv },
    });
    try {
      const url = `${server.url.replace("0.0.0.0", "127.0.0.1")}/v1/capabilities`;
      expect((await fetch(url, { headers: bearer(secret) })).status).toBe(200);
      expect((await fetch(url, { headers: bearer(server.token) })).status).toBe(401);
    } finally {
      expect(await server.stop("SIGTERM")).toBe(0);
    }
  });
});
