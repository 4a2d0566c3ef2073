/**
 * The keys and providers a running agent uses, kept in step with `auth.json`
 * and the `providers` of `settings.json`: a login (or logout) in another
 * process takes effect at the next `session/new` or `authenticate`, without a
 * restart. Each check costs two `stat` calls; a file is read again only when
 * its size, times or inode changed. The rest of `settings.json` is read at
 * start only.
 * @module
 */
import { fileVersionSync, type FileVersion } from "../runtime/files/fs.ts";
import { loadAuthFile } from "./auth-file.ts";
import type { HomePaths } from "./home.ts";
import { configuredProviders, type ProviderConfig } from "./providers.ts";
import { loadUserSettings } from "./settings.ts";
import type { AuthFile, Settings } from "./settings-schema.ts";

/** What tells one version of a file from the next; "missing" when there is none. */
export type FileStamp = string;

/** The stamp of `path` now. */
export function fileStamp(path: string): FileStamp {
  let version: FileVersion | undefined;
  try {
    version = fileVersionSync(path);
  } catch (error) {
    // Unreadable metadata (a permission change) counts as a change: the read that follows says what is wrong.
    return `error:${(error as Error).message}`;
  }
  return version ? `${version.ino}:${version.size}:${version.mtimeMs}:${version.ctimeMs}` : "missing";
}

/** The home files' stamps, taken before they are read: a change during the read is seen by the next check. */
export interface HomeStamps {
  settings: FileStamp;
  auth: FileStamp;
}

/** Credentials and providers as the files now say; `refresh` re-reads what changed. */
export class CredentialFiles {
  readonly #paths: HomePaths;
  #stamps: HomeStamps;
  #auth: AuthFile;
  #providers: ProviderConfig[];
  #refreshing?: Promise<void>;

  constructor(paths: HomePaths, loaded: { settings: Settings; auth: AuthFile; stamps: HomeStamps }) {
    this.#paths = paths;
    this.#stamps = { ...loaded.stamps };
    this.#auth = loaded.auth;
    this.#providers = configuredProviders(loaded.settings);
  }

  /** Keys stored in `auth.json`, by provider. */
  get auth(): AuthFile {
    return this.#auth;
  }

  /** Built-in providers and those of `settings.json`. */
  get providers(): ProviderConfig[] {
    return this.#providers;
  }

  /**
   * Reads again each file that changed since it was last read. A changed file
   * that cannot be used throws `ConfigError` and leaves what was known before;
   * the next call tries again.
   */
  refresh(): Promise<void> {
    // Concurrent callers (two sessions opening) share one check.
    this.#refreshing ??= this.#check().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #check(): Promise<void> {
    const auth = fileStamp(this.#paths.auth);
    const settings = fileStamp(this.#paths.settings);
    if (auth !== this.#stamps.auth) {
      this.#auth = await loadAuthFile(this.#paths.auth);
      this.#stamps.auth = auth;
    }
    if (settings !== this.#stamps.settings) {
      this.#providers = configuredProviders(await loadUserSettings(this.#paths.settings));
      this.#stamps.settings = settings;
    }
  }
}
