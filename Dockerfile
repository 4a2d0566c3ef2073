# acp-edge as a container sidecar: `agent serve` on 0.0.0.0:8711, as a non-root user,
# sessions and the generated token in the /data volume.
#
#   docker build -t acp-edge .
#   docker run -p 8711:8711 -e ACP_EDGE_TOKEN=... -v acp-edge-data:/data acp-edge
#
# Build arguments:
#   RUNTIME_BASE  the final image's base: a distroless Node 20 image (node at /nodejs/bin/node,
#                 no shell, no package manager). Any base with node at that path and a user 65532 works.
#   BUILDER_BASE  the image that builds the single file from source (needs npm).
#   APP           where /app/acp-edge.mjs comes from: "from-source" (default; npm ci and
#                 `npm run build:single` inside the build) or "from-release" (a release/acp-edge.mjs
#                 already built on the host with `npm run build:single`; the build then runs no commands).
#                 BuildKit and Buildah build only the stage selected here.
ARG RUNTIME_BASE=gcr.io/distroless/nodejs20-debian12:nonroot
ARG BUILDER_BASE=node:20-bookworm-slim
ARG APP=from-source

FROM ${BUILDER_BASE} AS from-source
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
RUN npm run build:single && mkdir -p /out/app /out/data && cp release/acp-edge.mjs /out/app/

FROM scratch AS from-release
# WORKDIR makes the (empty) directory without running anything.
WORKDIR /out/data
COPY release/acp-edge.mjs /out/app/

FROM ${APP} AS app

FROM ${RUNTIME_BASE}
COPY --from=app /out/app/ /app/
COPY --from=app --chown=65532:65532 /out/data/ /data/
USER 65532:65532
WORKDIR /data
ENV ACP_EDGE_HOME=/data NODE_ENV=production
VOLUME ["/data"]
EXPOSE 8711
STOPSIGNAL SIGTERM
# Node's own fetch, so the image needs no curl or shell.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["/nodejs/bin/node", "-e", "fetch('http://127.0.0.1:8711/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/nodejs/bin/node", "/app/acp-edge.mjs"]
CMD ["agent", "serve", "--host", "0.0.0.0", "--port", "8711", "--allow-remote"]
