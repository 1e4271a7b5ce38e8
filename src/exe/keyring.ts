/**
 * `@napi-rs/keyring` inside the single executable (docs/install.md). The exe build aliases the
 * package to this module, so `src/storage/credentials.ts` imports it unchanged. A SEA cannot
 * `require()` a file from its own bytes: the addon for the target platform travels as the asset
 * `keyring.node` and is loaded by `loadAddon` (addon.ts: a user-only file, hashed before dlopen).
 * The expected SHA-256 is the builder's (RSI_KEYRING_SHA256, set by esbuild's define), so an
 * asset other than the one it embedded is never loaded.
 *
 * Loading happens on first import, which credentials.ts does only when the keychain is used; a
 * missing Secret Service then fails later, in the addon's own calls, exactly as under bin/rsi.js.
 */
import sea from 'node:sea';
import type * as Keyring from '@napi-rs/keyring';
import { ASSET, candidateFolders, loadAddon } from './addon.js';

declare const RSI_KEYRING_SHA256: string;

const binding = loadAddon(new Uint8Array(sea.getRawAsset(ASSET) as ArrayBuffer), RSI_KEYRING_SHA256, candidateFolders()) as typeof Keyring;

export const AsyncEntry = binding.AsyncEntry;
export const Entry = binding.Entry;
export const findCredentials = binding.findCredentials;
export const findCredentialsAsync = binding.findCredentialsAsync;
