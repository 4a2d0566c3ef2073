/**
 * `acp-edge --help`.
 * @module
 */
export const HELP = `acp-edge — a coding agent for editors that speak the Agent Client Protocol (ACP v1)

Usage:
  acp-edge agent stdio [options]   ACP on stdin/stdout (stdout carries protocol only; logs go to stderr)
  acp-edge agent serve [options]   HTTP + WebSocket server (loopback by default)
  acp-edge demo                    offline end-to-end run against the built-in scripted model
  acp-edge models [--all]          list the models with credentials (--all: the whole catalogue, with or without)
  acp-edge login                   store a provider's key (a dialogue on a terminal; the key is never shown)
  acp-edge login --provider P [--base-url URL --model ID] [--no-verify] < key
                                   the same for scripts: the key on standard input, never on the command line
  acp-edge login --status          which providers have credentials, and from where (never the key)
  acp-edge logout [PROVIDER]       remove stored keys (all of them without a provider)
  acp-edge --version | --help

Options:
  --home DIR                 acp-edge's own directory (env ACP_EDGE_HOME, default ~/.acp-edge)
  --model PROVIDER/ID        model for new sessions (default: settings.json defaultModel, else the first with credentials)
  --approval-mode MODE       read-only | ask | write | auto | yolo (default ask)
  --session-dir DIR          where sessions are stored (default <home>/sessions)
  --no-session               keep sessions in memory only
  --log-level LEVEL          error | warn | info | debug (default warn)

Serve options:
  --host HOST                address to bind (default 127.0.0.1)
  --port PORT                port (default 8711; 0 = any free port)
  --token-file FILE          bearer token file (env ACP_EDGE_TOKEN also accepted; default <home>/api-token)
  --allow-remote             allow a non-loopback bind (traffic is plaintext)
  --allow-origin ORIGIN      let web pages from ORIGIN (http://localhost:3000) use the server; repeatable
  --http-idle-timeout SECS   close Streamable HTTP connections idle this long (default 300)

Credentials: acp-edge login (<home>/auth.json, mode 0600), ANTHROPIC_API_KEY, OPENAI_API_KEY (base
URLs: ANTHROPIC_BASE_URL, OPENAI_BASE_URL), a preset service's key alone (OPENROUTER_API_KEY,
GROQ_API_KEY, DEEPSEEK_API_KEY, MISTRAL_API_KEY, XAI_API_KEY, TOGETHER_API_KEY, FIREWORKS_API_KEY,
CEREBRAS_API_KEY, OLLAMA_API_KEY), or custom providers in <home>/settings.json. A running agent sees
a new login at its next session. See docs/configuration.md.
`;
