/**
 * Contract: what sync takes from the settings the container parsed and the config file: the credentials and
 * system-git environment a remote is reached with (GIT_KB_TOKEN / GIT_KB_USERNAME over the config's `token` /
 * `username`), and whether auto-sync is on (GIT_KB_AUTO_SYNC, parsed by Settings' one boolean parser, over the
 * config's `auto_sync`).
 */
import type { KbConfig } from '../adapters/config/config.js';
import type { Settings } from '../adapters/config/settings.js';
import type { TransportSettings } from '../adapters/git/remote.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** The settings a remote is reached with. */
export function remoteSettings(settings: Settings, cfg: KbConfig): TransportSettings {
  return { ...settings, token: settings.token ?? str(cfg.token), username: settings.username ?? str(cfg.username) };
}

/** True when a CLI write is followed by a push. */
export function autoSyncOn(settings: Pick<Settings, 'autoSync'>, cfg: KbConfig): boolean {
  return settings.autoSync ?? cfg.auto_sync === true;
}
