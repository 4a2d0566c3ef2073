/**
 * `/v1/sessions`: list, create, get and delete durable sessions over plain
 * HTTP. Sessions are addressed by id or unique title; each carries its
 * generation and the URL to attach to it. A create's body is read only up to
 * `maxRestBodyBytes` (413 past it), and errors quote it in excerpts only.
 * @module
 */
import { Hono } from "hono";
import * as v from "valibot";
import { newSessionId } from "../sessions/lifecycle/open-session.ts";
import type { AgentServices } from "../sessions/services.ts";
import { statOrUndefined } from "../runtime/files/fs.ts";
import { isAbsolute } from "../runtime/files/path.ts";
import { claimTitle } from "../store/title-claim.ts";
import { isArchiveFilter } from "../store/archive-marker.ts";
import { StoreError, type SessionSummary } from "../store/types.ts";
import { readBoundedBody } from "./bounded-body.ts";
import { excerpt, json, jsonError } from "./http-errors.ts";
import type { ServeLimits } from "./limits.ts";
import type { ServerState } from "./server-state.ts";
import { generationOf, resolveSessionRef } from "./session-refs.ts";

const CreateBody = v.object({
  cwd: v.pipe(v.string(), v.minLength(1)),
  title: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200))),
  additionalDirectories: v.optional(v.array(v.string())),
});

async function describe(session: SessionSummary) {
  const path = `/v1/session/${encodeURIComponent(session.id)}`;
  return {
    id: session.id,
    cwd: session.cwd,
    additionalDirectories: session.additionalDirectories,
    title: session.title ?? null,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    archived: session.archived,
    generation: await generationOf(session.id),
    links: { self: `/v1/sessions/${encodeURIComponent(session.id)}`, apc: `${path}/apc` },
  };
}

function storeProblem(error: unknown): Response {
  if (error instanceof StoreError) {
    const status = error.code === "not_found" ? 404 : error.code === "invalid_cursor" ? 400 : error.code === "locked" ? 409 : 500;
    return jsonError(status, `session_${error.code}`, error.message);
  }
  throw error;
}

async function directoryProblem(path: string, field: string): Promise<Response | undefined> {
  if (!isAbsolute(path)) return jsonError(400, "invalid_request", `${field} must be an absolute path`);
  const info = await statOrUndefined(path).catch(() => undefined);
  if (!info?.isDirectory) return jsonError(400, "invalid_request", `${field} is not an existing directory: ${excerpt(path)}`);
  return undefined;
}

/** What a body that is not a valid create says: each problem's place and kind, never the value in full. */
function describeProblems(issues: readonly v.BaseIssue<unknown>[]): string {
  const shown = issues.slice(0, 3).map((i) => `${excerpt(v.getDotPath(i) ?? "body", 60)}: ${excerpt(i.message, 120)}`);
  return issues.length > 3 ? `${shown.join("; ")}; and ${issues.length - 3} more` : shown.join("; ");
}

/** Reads a create's body: JSON of at most `limit` bytes. */
async function readCreateBody(request: Request, limit: number): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  const body = await readBoundedBody(request, limit);
  if (!body.ok && body.reason === "too_large") return { ok: false, response: jsonError(413, "body_too_large", `the body exceeds ${limit} bytes`) };
  try {
    if (body.ok) return { ok: true, value: JSON.parse(new TextDecoder().decode(body.bytes)) };
  } catch {
    // answered below, like an unreadable body
  }
  return { ok: false, response: jsonError(400, "invalid_request", "the body must be JSON: {\"cwd\": \"/abs/path\", \"title\"?: \"…\"}") };
}

/** The routes under `/v1/sessions`. */
export function sessionRoutes(services: AgentServices, state: ServerState, limits: ServeLimits): Hono {
  const routes = new Hono();

  routes.get("/", async (c) => {
    try {
      const cwd = c.req.query("cwd");
      const cursor = c.req.query("cursor");
      const archived = c.req.query("archived") ?? "exclude";
      if (!isArchiveFilter(archived)) return jsonError(400, "invalid_request", "archived must be exclude, include or only");
      const page = await services.store.list({ ...(cwd ? { cwd } : {}), ...(cursor ? { cursor } : {}), archived });
      return json({ sessions: await Promise.all(page.sessions.map(describe)), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) });
    } catch (error) {
      return storeProblem(error);
    }
  });

  routes.post("/", async (c) => {
    const body = await readCreateBody(c.req.raw, limits.maxRestBodyBytes);
    if (!body.ok) return body.response;
    const parsed = v.safeParse(CreateBody, body.value);
    if (!parsed.success) return jsonError(400, "invalid_request", describeProblems(parsed.issues));
    const { cwd, title, additionalDirectories = [] } = parsed.output;
    for (const [path, field] of [[cwd, "cwd"], ...additionalDirectories.map((d) => [d, "additionalDirectories"])] as const) {
      const problem = await directoryProblem(path, field);
      if (problem) return problem;
    }
    const create = async () => {
      const id = newSessionId();
      const journal = await services.store.create({ id, cwd, additionalDirectories });
      try {
        if (title) await journal.append({ type: "title", title }, { sync: true });
      } finally {
        await journal.close();
      }
      return id;
    };
    // A session that lost the title to another process is deleted again: it was never announced.
    const id = title ? await claimTitle(services.store, title, { write: create, withdraw: (lost) => services.store.delete(lost) }) : await create();
    if (id === undefined) return jsonError(409, "title_taken", `a session titled ${JSON.stringify(excerpt(title!))} exists; delete it or choose another title`);
    const now = new Date().toISOString();
    return json(await describe({ id, cwd, additionalDirectories, createdAt: now, updatedAt: now, archived: false, ...(title ? { title } : {}) }), 201);
  });

  routes.get("/:ref", async (c) => {
    const resolved = await resolveSessionRef(services.store, c.req.param("ref"));
    if (!resolved.ok) return jsonError(404, resolved.code, resolved.message);
    return json(await describe(resolved.session));
  });

  routes.delete("/:ref", async (c) => {
    const resolved = await resolveSessionRef(services.store, c.req.param("ref"));
    if (!resolved.ok) return jsonError(404, resolved.code, resolved.message);
    const id = resolved.session.id;
    services.sessions.deleting(id, "the session was deleted");
    try {
      await services.sessions.whileReleased(id, "the session was deleted", () => services.store.delete(id));
    } catch (error) {
      return storeProblem(error);
    }
    return new Response(null, { status: 204 });
  });

  return routes;
}
