#!/usr/bin/env node
/**
 * Entry point of the `acp-edge` executable (`dist/cli.js`).
 * @module
 */
import { commandArgs, exitProcess } from "../runtime/process.ts";
import { exitOnUncaughtError, runCli } from "./main.ts";

exitOnUncaughtError();
exitProcess(await runCli(commandArgs()));
