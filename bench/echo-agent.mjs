// The floor for cold-start comparisons: a dependency-free "agent" that
// answers the first NDJSON request with a minimal initialize result.
let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  const newline = buffer.indexOf("\n");
  if (newline < 0) return;
  const request = JSON.parse(buffer.slice(0, newline));
  process.stdout.write(
    JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }) + "\n",
  );
  process.exit(0);
});
