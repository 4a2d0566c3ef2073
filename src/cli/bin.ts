#!/usr/bin/env node
/**
 * Entry point of the `acp-edge` executable (`dist/cli.js`).
 * @module
 */
import { enableCompileCache } from "../runtime/compile-cache.ts";

// Before the rest of the program is imported, so Node (22.1+) can cache its compiled code.
enableCompileCache();
const [{ commandArgs, exitProcess }, { exitOnUncaughtError, runCli }] = await Promise.all([
  import("../runtime/process.ts"),
  import("./main.ts"),
]);
exitOnUncaughtError();
exitProcess(await runCli(commandArgs()));
