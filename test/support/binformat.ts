/**
 * Just enough of the PE and Mach-O formats to check, on Linux, the Windows and macOS single
 * executables that cannot run here (docs/install.md): the header and architecture, where Node's
 * SEA blob was put (PE: the RT_RCDATA resource NODE_SEA_BLOB; Mach-O: section __NODE_SEA_BLOB of
 * segment NODE_SEA, as node_sea.cc looks them up with postject's API), and whether a Mach-O still
 * carries a code signature. Offsets from the PE/COFF specification and Apple's <mach-o/loader.h>.
 */

export interface PeFile {
  /** IMAGE_FILE_MACHINE_*: 0x8664 for x64. */
  machine: number;
  /** IMAGE_FILE_DLL set in the COFF characteristics. */
  dll: boolean;
  /** PE32+ (optional header magic 0x20b), the 64-bit format. */
  pe32plus: boolean;
  resources: { type: number | string; name: number | string; offset: number; size: number }[];
}

export interface MachOFile {
  /** CPU_TYPE_*: 0x01000007 x86_64, 0x0100000c arm64. */
  cputype: number;
  /** MH_EXECUTE 2, MH_DYLIB 6, MH_BUNDLE 8. */
  filetype: number;
  sections: { segment: string; section: string; offset: number; size: number }[];
  /** An LC_CODE_SIGNATURE load command is present. */
  signed: boolean;
}

export const PE_MACHINE_X64 = 0x8664;
export const MACHO_CPU_X86_64 = 0x01000007;
export const MACHO_CPU_ARM64 = 0x0100000c;

export function readPe(buf: Buffer): PeFile {
  if (buf.toString('latin1', 0, 2) !== 'MZ') throw new Error('not a PE file: no MZ header');
  const pe = buf.readUInt32LE(0x3c);
  if (buf.toString('latin1', pe, pe + 4) !== 'PE\0\0') throw new Error('not a PE file: no PE signature');
  const coff = pe + 4;
  const machine = buf.readUInt16LE(coff);
  const sectionCount = buf.readUInt16LE(coff + 2);
  const optionalSize = buf.readUInt16LE(coff + 16);
  const characteristics = buf.readUInt16LE(coff + 18);
  const optional = coff + 20;
  const pe32plus = buf.readUInt16LE(optional) === 0x20b;
  // Data directories follow the fixed fields (112 bytes in PE32+, 96 in PE32); entry 2 is resources.
  const directories = optional + (pe32plus ? 112 : 96);
  const resourceRva = buf.readUInt32LE(directories + 2 * 8);
  const sections: { rva: number; virtualSize: number; raw: number }[] = [];
  for (let i = 0, s = optional + optionalSize; i < sectionCount; i++, s += 40)
    sections.push({ virtualSize: buf.readUInt32LE(s + 8), rva: buf.readUInt32LE(s + 12), raw: buf.readUInt32LE(s + 20) });
  const fileOffset = (rva: number): number => {
    const section = sections.find((s) => rva >= s.rva && rva < s.rva + s.virtualSize);
    if (!section) throw new Error(`RVA 0x${rva.toString(16)} is in no section`);
    return rva - section.rva + section.raw;
  };
  const resources: PeFile['resources'] = [];
  if (resourceRva) {
    const root = fileOffset(resourceRva);
    // An entry's name is an id, or (high bit) the offset of a counted UTF-16 string from the root.
    const entryName = (value: number): number | string => {
      if (!(value & 0x80000000)) return value;
      const at = root + (value & 0x7fffffff);
      return buf.toString('utf16le', at + 2, at + 2 + 2 * buf.readUInt16LE(at));
    };
    // Three levels: type, name, language; the last points at a data entry (RVA, size).
    const walk = (dir: number, path: (number | string)[]): void => {
      const count = buf.readUInt16LE(dir + 12) + buf.readUInt16LE(dir + 14);
      for (let i = 0, e = dir + 16; i < count; i++, e += 8) {
        const name = entryName(buf.readUInt32LE(e));
        const target = buf.readUInt32LE(e + 4);
        if (target & 0x80000000) walk(root + (target & 0x7fffffff), [...path, name]);
        else {
          const data = root + target;
          resources.push({
            type: path[0] ?? name,
            name: path[1] ?? name,
            offset: fileOffset(buf.readUInt32LE(data)),
            size: buf.readUInt32LE(data + 4),
          });
        }
      }
    };
    walk(root, []);
  }
  return { machine, dll: (characteristics & 0x2000) !== 0, pe32plus, resources };
}

export function readMachO(buf: Buffer): MachOFile {
  // MH_MAGIC_64, little-endian: both macOS targets (x86_64, arm64) are thin 64-bit files.
  if (buf.readUInt32LE(0) !== 0xfeedfacf) throw new Error('not a thin 64-bit little-endian Mach-O file');
  const cputype = buf.readUInt32LE(4);
  const filetype = buf.readUInt32LE(12);
  const commands = buf.readUInt32LE(16);
  const sections: MachOFile['sections'] = [];
  let signed = false;
  const name = (at: number): string => buf.toString('latin1', at, at + 16).replace(/\0.*$/s, '');
  for (let i = 0, c = 32; i < commands; i++) {
    const cmd = buf.readUInt32LE(c);
    const size = buf.readUInt32LE(c + 4);
    if (cmd === 0x19) {
      // LC_SEGMENT_64: 72 bytes, then nsects section_64 records of 80 bytes.
      const nsects = buf.readUInt32LE(c + 64);
      for (let j = 0, s = c + 72; j < nsects; j++, s += 80)
        sections.push({
          section: name(s),
          segment: name(s + 16),
          size: Number(buf.readBigUInt64LE(s + 40)),
          offset: buf.readUInt32LE(s + 48),
        });
    } else if (cmd === 0x1d) signed = true; // LC_CODE_SIGNATURE
    c += size;
  }
  return { cputype, filetype, sections, signed };
}

/** node_sea.cc's kMagic, the first four bytes of every SEA blob. */
export const SEA_BLOB_MAGIC = 0x0143da20;

/**
 * The sentinel postject and `node --build-sea` flip from `:0` to `:1` when they inject a blob;
 * Node only looks for its blob when it reads `:1`.
 */
export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/**
 * One asset's bytes out of a SEA blob. The blob's header fields change between Node versions, so
 * this does not walk it from the start: it finds the asset as the serializer writes every string,
 * a 64-bit little-endian length and the bytes, key then content.
 */
export function seaAsset(blob: Buffer, key: string): Buffer | undefined {
  const keyBytes = Buffer.from(key, 'utf8');
  const needle = Buffer.alloc(8 + keyBytes.length);
  needle.writeBigUInt64LE(BigInt(keyBytes.length));
  keyBytes.copy(needle, 8);
  const at = blob.indexOf(needle);
  if (at < 0) return undefined;
  const start = at + needle.length;
  const length = Number(blob.readBigUInt64LE(start));
  if (start + 8 + length > blob.length) return undefined;
  return blob.subarray(start + 8, start + 8 + length);
}
