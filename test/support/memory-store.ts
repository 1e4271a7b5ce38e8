/** An in-memory CredentialStore for unit tests (kept out of src/: nothing at run time keeps tokens only in memory). */
import type { CredentialKey, CredentialStore, StoredTokens } from '../../src/storage/credentials.js';

export class MemoryStore implements CredentialStore {
  readonly kind = 'memory';
  private readonly entries = new Map<string, StoredTokens>();

  async probe(): Promise<void> {}

  async load(key: CredentialKey): Promise<StoredTokens | undefined> {
    return this.entries.get(entryName(key));
  }

  async save(key: CredentialKey, tokens: StoredTokens): Promise<void> {
    this.entries.set(entryName(key), { ...tokens });
  }

  async update(key: CredentialKey, fn: (current: StoredTokens | undefined) => StoredTokens | undefined): Promise<void> {
    const next = fn(await this.load(key));
    if (next !== undefined) await this.save(key, next);
  }

  async delete(key: CredentialKey): Promise<void> {
    this.entries.delete(entryName(key));
  }
}

function entryName(key: CredentialKey): string {
  return `${key.profile} ${key.baseUrl}`;
}
