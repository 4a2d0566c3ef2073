#!/usr/bin/env node
/**
 * Entry point of the `acp-edge` executable (`dist/cli.js`).
 * @module
 */
import { undoBunDotenv } from "../runtime/host/bun-dotenv.ts";
import { enableCompileCache } from "../runtime/host/compile-cache.ts";
import { startWithReluctantJit } from "../runtime/host/jit-policy.ts";

// Start-up code runs once: on Bun, keep the JIT from compiling it (normal again once interactive).
startWithReluctantJit();

// Before anything reads the environment: what a project's .env made Bun set is undone (see bun-dotenv.ts).
const dotenv = await undoBunDotenv();
// Before the rest of the program is imported, so Node (22.1+) can cache its compiled code.
enableCompileCache();
const [{ commandArgs, exitProcess }, { exitOnUncaughtError, reportDotenvUndo, runCli }] = await Promise.all([
  import("../runtime/process/process.ts"),
  import("./main.ts"),
]);
exitOnUncaughtError();
if (!reportDotenvUndo(dotenv)) exitProcess(2);
exitProcess(await runCli(commandArgs()));
