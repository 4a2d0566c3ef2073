#!/usr/bin/env node
/**
 * Entry point of the `acp-edge` executable (`dist/cli.js`).
 * @module
 */
import { commandArgs, exitProcess } from "../runtime/process.ts";
import { runCli } from "./main.ts";

exitProcess(await runCli(commandArgs()));
