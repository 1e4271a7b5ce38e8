// The Windows x64 and macOS x64/arm64 single executables, cross-built on Linux by
// `npm run build:exe -- --target win-x64,darwin-x64,darwin-arm64` (docs/install.md). They cannot
// run here, so this checks what a Linux machine can: each file's format and architecture, Node's
// SEA blob where Node looks for it with the fuse flipped, the script the build made inside it, the
// keychain addon inside for that platform (and the one the embedded loader's hash accepts), jq's
// wasm, the notices beside it and its line in SHA256SUMS. .ci/run does not build them (the three
// Node packages are 147 MB to download): each target skips, with the command to build it, when
// its binary is absent, and RSI_REQUIRE_CROSS_EXE=1 turns that skip into a failure.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MACHO_CPU_ARM64,
  MACHO_CPU_X86_64,
  type MachOFile,
  PE_MACHINE_X64,
  type PeFile,
  readMachO,
  readPe,
  SEA_BLOB_MAGIC,
  SEA_FUSE,
  seaAsset,
} from '../support/binformat.js';
import { ranOnceThisRun } from '../support/system.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = join(ROOT, 'dist/exe');

interface Target {
  target: string;
  file: string;
  format: 'pe' | 'macho';
  /** PE machine or Mach-O CPU type, of the binary and of its addon. */
  cpu: number;
  addonPackage: string;
}

const TARGETS: Target[] = [
  { target: 'win-x64', file: 'rsi-win-x64.exe', format: 'pe', cpu: PE_MACHINE_X64, addonPackage: '@napi-rs/keyring-win32-x64-msvc' },
  { target: 'darwin-x64', file: 'rsi-darwin-x64', format: 'macho', cpu: MACHO_CPU_X86_64, addonPackage: '@napi-rs/keyring-darwin-x64' },
  {
    target: 'darwin-arm64',
    file: 'rsi-darwin-arm64',
    format: 'macho',
    cpu: MACHO_CPU_ARM64,
    addonPackage: '@napi-rs/keyring-darwin-arm64',
  },
];

const required = process.env.RSI_REQUIRE_CROSS_EXE === '1';

function skipUnbuilt({ target, file }: Target): boolean {
  if (ranOnceThisRun(`the cross-built ${target} binary checks`)) return true;
  if (existsSync(join(OUT, file))) return false;
  const reason = `dist/exe/${file} is not built (npm run build:exe -- --target ${target}; .ci/run does not build it)`;
  if (required) throw new Error(`RSI_REQUIRE_CROSS_EXE=1 but ${reason}`);
  console.warn(`[skip] cross-built ${target} binary checks skipped: ${reason}`);
  return true;
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The addon's own header: a PE DLL or a Mach-O dynamic library, for the binary's CPU. */
function expectAddonFor(t: Target, addon: Buffer): void {
  if (t.format === 'pe') {
    const pe = readPe(addon);
    expect(pe).toMatchObject({ machine: t.cpu, dll: true, pe32plus: true });
  } else {
    const macho = readMachO(addon);
    // MH_DYLIB, as napi-rs builds it; signed by its publisher (arm64 macOS loads no unsigned code).
    expect(macho).toMatchObject({ cputype: t.cpu, filetype: 6, signed: true });
  }
}

for (const t of TARGETS) {
  describe.skipIf(skipUnbuilt(t))(`the cross-built ${t.target} binary (${t.file}), not run here`, () => {
    let bytes: Buffer;
    let pe: PeFile | undefined;
    let macho: MachOFile | undefined;
    let blob: Buffer;
    beforeAll(() => {
      bytes = readFileSync(join(OUT, t.file));
      if (t.format === 'pe') pe = readPe(bytes);
      else macho = readMachO(bytes);
      // Where node_sea.cc finds it: the RT_RCDATA (10) resource NODE_SEA_BLOB on Windows, the
      // section __NODE_SEA_BLOB of segment NODE_SEA on macOS.
      const where = pe
        ? pe.resources.find((r) => r.type === 10 && r.name === 'NODE_SEA_BLOB')
        : macho?.sections.find((s) => s.segment === 'NODE_SEA' && s.section === '__NODE_SEA_BLOB');
      blob = where ? bytes.subarray(where.offset, where.offset + where.size) : Buffer.alloc(0);
    });
    // 110 to 150 MB each: let the next target's file take this one's memory (the worker is shared).
    afterAll(() => {
      bytes = blob = Buffer.alloc(0);
    });

    it('is a 64-bit executable for its platform and CPU', () => {
      if (t.format === 'pe') expect(pe).toMatchObject({ machine: t.cpu, pe32plus: true, dll: false });
      else expect(macho).toMatchObject({ cputype: t.cpu, filetype: 2 });
    });

    it("holds Node's SEA blob where Node looks for it, with the fuse flipped", () => {
      expect(blob.length).toBeGreaterThan(8);
      expect(blob.readUInt32LE(0)).toBe(SEA_BLOB_MAGIC);
      // Node reads its blob only when the sentinel says `:1`; it is in the binary exactly once.
      expect(bytes.indexOf(`${SEA_FUSE}:1`)).toBeGreaterThan(0);
      expect(bytes.indexOf(`${SEA_FUSE}:1`, bytes.indexOf(`${SEA_FUSE}:1`) + 1)).toBe(-1);
      expect(bytes.indexOf(`${SEA_FUSE}:0`)).toBe(-1);
    });

    it("carries rsi's scripts as this build made them (dist/exe/<target>/rsi.cjs and rsi-full.cjs, the assets the boot script compiles)", () => {
      for (const name of ['rsi.cjs', 'rsi-full.cjs']) {
        const script = readFileSync(join(OUT, t.target, name));
        expect(blob.indexOf(script), name).toBeGreaterThan(0);
      }
    });

    it("carries the keychain addon for its platform, the one the loader's embedded hash accepts", () => {
      const addon = seaAsset(blob, 'keyring.node');
      expect(addon, 'no keyring.node asset in the blob').toBeDefined();
      expectAddonFor(t, addon as Buffer);
      // src/exe/keyring.ts loads the asset only when its SHA-256 is RSI_KEYRING_SHA256, the
      // builder's hash of the package it took: the same hash must be in the script.
      for (const name of ['rsi.cjs', 'rsi-full.cjs'])
        expect(readFileSync(join(OUT, t.target, name), 'utf8'), name).toContain(`"${sha256(addon as Buffer)}"`);
    });

    it("carries jq's engine, byte for byte the jq-wasm package's", () => {
      const wasm = seaAsset(blob, 'jq.wasm');
      expect(wasm && sha256(wasm)).toBe(sha256(readFileSync(join(ROOT, 'node_modules/jq-wasm/dist/build/jq.wasm'))));
    });

    if (t.format === 'macho')
      it('carries no code signature: it must be signed before macOS runs it (docs/install.md)', () => {
        // Injecting the blob drops Node's signature (it no longer matched); codesign adds one.
        expect(macho?.signed).toBe(false);
      });

    it('has its notices beside it: the bundled packages, its keychain addon and Node', () => {
      const text = readFileSync(join(OUT, `${t.file.replace(/\.exe$/, '')}.THIRD-PARTY-NOTICES.txt`), 'utf8');
      expect(text.split('\n', 1)[0]).toMatch(
        new RegExp(`^Third-party notices for ${t.file.replace('.', '\\.')} \\(rsi \\S+, Node 26\\.\\d+\\.\\d+ inside\\)$`),
      );
      expect(text).toMatch(/^commander \S+ \(MIT\)$/m);
      expect(text).toMatch(new RegExp(`^${t.addonPackage.replace('/', '\\/')} \\S+ \\(MIT\\)$`, 'm'));
      expect(text).toMatch(/^Node\.js 26\.\d+\.\d+ \(MIT and others\)\n=+\n\nNode\.js is licensed for use as follows:/m);
      // And its SBOM, from the same list (test/journeys/exe.test.ts compares them part by part).
      const sbom = JSON.parse(readFileSync(join(OUT, `${t.file.replace(/\.exe$/, '')}.sbom.cdx.json`), 'utf8'));
      expect(sbom.metadata.component.name).toBe(t.file);
      expect(sbom.components.length).toBe(text.split(/^={78}$/m)[0]!.match(/^- /gm)!.length);
    });

    it('is listed in dist/exe/SHA256SUMS with its real hash', () => {
      const sums = readFileSync(join(OUT, 'SHA256SUMS'), 'utf8');
      expect(sums.split('\n')).toContain(`${sha256(bytes)}  ${t.file}`);
    });
  });
}
