// The single executables cross-built here for systems this machine cannot run (docs/install.md,
// "Binaries for other systems"): Windows x64 and macOS x64. They are never run in these tests; what
// can be checked without running them is: the file format and CPU of the Node inside, the SEA blob
// injected (Node's fuse flipped), rsi's own script inside, the keychain addon of that system inside
// byte for byte (and no other system's), its hash in the script, and the notices beside it.
// .ci/run builds them (`npm run build:exe -- --target …,win-x64,darwin-x64`).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { skipWithout } from '../support/system.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = join(ROOT, 'dist', 'exe');
/** Node's SEA fuse: `:0` in a plain Node binary, `:1` once a blob is injected. */
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:';

const TARGETS = [
  { target: 'win-x64', exe: 'rsi-win-x64.exe', format: 'PE32+ x86-64', addonMagic: 'MZ' },
  { target: 'darwin-x64', exe: 'rsi-darwin-x64', format: 'Mach-O 64-bit x86-64', addonMagic: 'cffaedfe' },
] as const;

/** The machine field of a PE file (0x8664: x86-64), after checking the MZ and PE signatures. */
function peMachine(bytes: Buffer): number {
  expect(bytes.subarray(0, 2).toString('latin1')).toBe('MZ');
  const pe = bytes.readUInt32LE(0x3c);
  expect(bytes.subarray(pe, pe + 4).toString('latin1')).toBe('PE\0\0');
  return bytes.readUInt16LE(pe + 4);
}

for (const t of TARGETS) {
  const exe = join(OUT, t.exe);
  const config = join(OUT, t.target, 'sea-config.json');
  const skip = skipWithout({
    name: `cross-built ${t.exe}`,
    available: existsSync(exe) && existsSync(config),
    reason: `${exe} not built (npm run build:exe -- --target ${t.target}; .ci/run builds it)`,
  });

  describe.skipIf(skip)(`${t.exe}, cross-built and not run here`, () => {
    const bytes = skip ? Buffer.alloc(0) : readFileSync(exe);
    const sea = skip
      ? undefined
      : (JSON.parse(readFileSync(config, 'utf8')) as { assets: Record<string, string>; executable: string; main: string });

    it(`is a ${t.format} executable`, () => {
      if (t.target === 'win-x64') expect(peMachine(bytes)).toBe(0x8664);
      else {
        expect(bytes.readUInt32LE(0)).toBe(0xfeedfacf);
        expect(bytes.readUInt32LE(4)).toBe(0x01000007);
      }
    });

    it("carries an injected SEA blob (Node's fuse flipped) with rsi's own script", () => {
      expect(bytes.indexOf(`${FUSE}1`)).toBeGreaterThan(0);
      expect(bytes.indexOf(`${FUSE}0`)).toBe(-1);
      // The plain Node it was made of has the fuse unset: the blob is what changed it.
      expect(readFileSync(sea!.executable).indexOf(`${FUSE}0`)).toBeGreaterThan(0);
      // Cross-built: no code cache, so the script is inside as text.
      const script = readFileSync(sea!.main);
      expect(bytes.indexOf(script.subarray(0, 4096))).toBeGreaterThan(0);
    });

    it('holds the keychain addon of its own system, byte for byte, its hash in the script, and no other', () => {
      const addon = readFileSync(sea!.assets['keyring.node']!);
      expect(sea!.assets['keyring.node']).toContain(t.target === 'win-x64' ? 'keyring-win32-x64-msvc' : 'keyring-darwin-x64');
      expect(t.addonMagic === 'MZ' ? addon.subarray(0, 2).toString('latin1') : addon.subarray(0, 4).toString('hex')).toBe(t.addonMagic);
      expect(bytes.indexOf(addon)).toBeGreaterThan(0);
      expect(bytes.indexOf(createHash('sha256').update(addon).digest('hex'))).toBeGreaterThan(0);
      const linux = join(ROOT, 'node_modules', '@napi-rs', 'keyring-linux-x64-gnu', 'keyring.linux-x64-gnu.node');
      if (existsSync(linux)) expect(bytes.indexOf(readFileSync(linux).subarray(0, 65536))).toBe(-1);
      // jq's engine rides along as the other asset.
      expect(bytes.indexOf(readFileSync(sea!.assets['jq.wasm']!).subarray(0, 65536))).toBeGreaterThan(0);
    });

    it("has its notices beside it, Node's licence included, and its sum in SHA256SUMS", () => {
      const notices = readFileSync(join(OUT, `${t.exe.replace(/\.exe$/, '')}.THIRD-PARTY-NOTICES.txt`), 'utf8');
      expect(notices).toMatch(/^Node\.js 26\.\d+\.\d+ \(MIT and others\)$/m);
      expect(notices).toMatch(new RegExp(`^@napi-rs/keyring-${t.target === 'win-x64' ? 'win32-x64-msvc' : 'darwin-x64'} `, 'm'));
      const sums = readFileSync(join(OUT, 'SHA256SUMS'), 'utf8');
      expect(sums).toContain(`${createHash('sha256').update(bytes).digest('hex')}  ${t.exe}\n`);
    });
  });
}
