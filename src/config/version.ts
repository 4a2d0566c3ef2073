/**
 * The package's name and version, for `--version` and `agentInfo`.
 * @module
 */
import pkg from "../../package.json" with { type: "json" };

export const PACKAGE_NAME: string = pkg.name;
export const PACKAGE_VERSION: string = pkg.version;
