#!/usr/bin/env bash
# Builds a local stand-in for the Dockerfile's default runtime base (distroless Node 20) when base
# images cannot be pulled: the C and C++ runtime libraries from Debian packages, this machine's
# node binary at /nodejs/bin/node, and a "nonroot" user 65532 — no shell, no package manager.
# Usage: scripts/container-local-base.sh [image-tag]   (root, podman, apt-get, dpkg-deb)
# Then:  podman build --format docker --build-arg RUNTIME_BASE=<image-tag> --build-arg APP=from-release .
set -euo pipefail
tag="${1:-localhost/acp-edge-base:local}"
node_bin="$(readlink -f "$(command -v node)")"
"$node_bin" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' \
  || { echo "node >= 20 is needed for the base image; found $("$node_bin" --version)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debs" "$work/rootfs"
# The libraries node links against (check with `ldd $(command -v node)`).
(cd "$work/debs" && apt-get download -qq libc6 libgcc-s1 libstdc++6 2>/dev/null)
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/rootfs"; done
if ldd "$node_bin" | grep -q 'not found'; then echo "node needs libraries this base does not have" >&2; exit 1; fi

rootfs="$work/rootfs"
mkdir -p "$rootfs/nodejs/bin" "$rootfs/tmp" "$rootfs/home/nonroot" "$rootfs/etc"
cp "$node_bin" "$rootfs/nodejs/bin/node"
chmod 1777 "$rootfs/tmp"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > "$rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$rootfs/etc/group"
chown 65532:65532 "$rootfs/home/nonroot"
[ -f /etc/ssl/certs/ca-certificates.crt ] && install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"

tar -C "$rootfs" -c . | podman import --quiet \
  --change 'USER 65532:65532' --change 'ENTRYPOINT ["/nodejs/bin/node"]' - "$tag" >/dev/null
echo "$tag"
