/**
 * The sandbox's seeded, deterministic demo data: keywords with synonyms, activity and scores, and
 * relations computed on the fly (item i of a relation is a pure function of the seed), so start-up
 * costs nothing even for relations with thousands of links.
 */
import { createHash } from 'node:crypto';

export type KeywordType = 'target' | 'disease' | 'modality' | 'mechanism' | 'sponsor' | 'asset';

export interface Keyword {
  id: string;
  name: string;
  type: KeywordType;
  synonyms: string[];
  description: string;
}

export const RELATIONS = ['indications', 'assets', 'pipeline_targets', 'sponsors'] as const;
export type Relation = (typeof RELATIONS)[number];
export const ACTIVITIES = ['trials', 'papers', 'patents'] as const;
export type Activity = (typeof ACTIVITIES)[number];

/** A UUID (version 5 layout) derived from a name: stable across runs and machines. */
export function uuidFor(name: string): string {
  const h = createHash('sha1').update(`rsi-sandbox:${name}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A number in [0, 1) derived from a string: the sandbox's only source of "randomness". */
export function unit(seed: string): number {
  return createHash('sha1').update(seed).digest().readUInt32BE(0) / 2 ** 32;
}

export function intBetween(seed: string, min: number, max: number): number {
  return min + Math.floor(unit(seed) * (max - min + 1));
}

const TARGETS: Array<[string, string[]]> = [
  ['EGFR', ['ERBB1', 'HER1', 'Epidermal growth factor receptor']],
  ['KRAS', ['K-Ras', 'KRAS proto-oncogene']],
  ['HER2', ['ERBB2', 'NEU']],
  ['ALK', ['Anaplastic lymphoma kinase']],
  ['BRAF', ['B-Raf']],
  ['PD-1', ['PDCD1', 'CD279']],
  ['PD-L1', ['CD274', 'B7-H1']],
  ['CTLA-4', ['CD152']],
  ['TROP2', ['TACSTD2']],
  ['CLDN18.2', ['Claudin 18.2']],
  ['MET', ['c-Met', 'HGFR']],
  ['RET', []],
  ['ROS1', []],
  ['NTRK1', ['TrkA']],
  ['FGFR2', []],
  ['FGFR3', []],
  ['IDH1', []],
  ['BTK', ["Bruton's tyrosine kinase"]],
  ['JAK1', []],
  ['JAK2', []],
  ['TYK2', []],
  ['IL-6', ['Interleukin 6']],
  ['IL-17A', []],
  ['IL-23', []],
  ['TNF', ['TNF-alpha']],
  ['TSLP', []],
  ['IL-4R', ['IL4RA']],
  ['CD19', []],
  ['CD20', ['MS4A1']],
  ['CD38', []],
  ['BCMA', ['TNFRSF17']],
  ['GPRC5D', []],
  ['FLT3', []],
  ['PIK3CA', ['PI3K alpha']],
  ['CDK4', []],
  ['CDK6', []],
  ['PARP1', []],
  ['ATR', []],
  ['WEE1', []],
  ['DLL3', []],
  ['B7-H3', ['CD276']],
  ['Nectin-4', ['PVRL4']],
  ['FcRn', ['FCGRT']],
  ['C5', ['Complement C5']],
  ['TREM2', []],
  ['LRRK2', []],
  ['SOD1', []],
  ['TTR', ['Transthyretin']],
  ['PCSK9', []],
  ['ANGPTL3', []],
  ['GLP-1R', ['GLP1R']],
  ['GIPR', []],
  ['NLRP3', []],
  ['RIPK1', []],
  ['LPA', ['Lp(a)']],
  ['TGF-beta', ['TGFB1']],
  ['LOXL2', []],
  ['Autotaxin', ['ENPP2']],
  ['PDE4B', []],
  ['ROCK2', []],
];

const DISEASES: Array<[string, string[]]> = [
  ['Non-small cell lung cancer', ['NSCLC']],
  ['Small cell lung cancer', ['SCLC']],
  ['Breast cancer', []],
  ['Triple-negative breast cancer', ['TNBC']],
  ['Colorectal cancer', ['CRC']],
  ['Pancreatic ductal adenocarcinoma', ['PDAC', 'Pancreatic cancer']],
  ['Gastric cancer', []],
  ['Hepatocellular carcinoma', ['HCC']],
  ['Melanoma', []],
  ['Prostate cancer', []],
  ['Ovarian cancer', []],
  ['Urothelial carcinoma', ['Bladder cancer']],
  ['Renal cell carcinoma', ['RCC']],
  ['Glioblastoma', ['GBM']],
  ['Acute myeloid leukemia', ['AML']],
  ['Multiple myeloma', ['MM']],
  ['Diffuse large B-cell lymphoma', ['DLBCL']],
  ['Chronic lymphocytic leukemia', ['CLL']],
  ['Idiopathic pulmonary fibrosis', ['IPF']],
  ['Systemic sclerosis', ['Scleroderma']],
  ['Rheumatoid arthritis', ['RA']],
  ['Psoriasis', []],
  ['Atopic dermatitis', ['Eczema']],
  ['Ulcerative colitis', ['UC']],
  ["Crohn's disease", []],
  ['Systemic lupus erythematosus', ['SLE', 'Lupus']],
  ['Asthma', []],
  ['COPD', ['Chronic obstructive pulmonary disease']],
  ['Myasthenia gravis', []],
  ["Alzheimer's disease", ['AD']],
  ["Parkinson's disease", ['PD']],
  ['Amyotrophic lateral sclerosis', ['ALS']],
  ["Huntington's disease", []],
  ['Type 2 diabetes', ['T2D']],
  ['Obesity', []],
  ['NASH', ['MASH', 'Nonalcoholic steatohepatitis']],
  ['Heart failure', []],
  ['Hypercholesterolemia', []],
  ['ATTR amyloidosis', ['Transthyretin amyloidosis']],
  ['Chronic kidney disease', ['CKD']],
];

const MODALITIES: Array<[string, string[]]> = [
  ['Small molecule', []],
  ['Monoclonal antibody', ['mAb']],
  ['Antibody-drug conjugate', ['ADC']],
  ['Bispecific antibody', ['BsAb']],
  ['CAR-T', ['Chimeric antigen receptor T cell']],
  ['siRNA', []],
  ['Antisense oligonucleotide', ['ASO']],
  ['mRNA', []],
  ['Gene therapy', ['AAV gene therapy']],
  ['PROTAC', ['Targeted protein degrader']],
  ['Radioligand', ['Radiopharmaceutical']],
  ['Peptide', []],
  ['Cell therapy', []],
  ['Vaccine', []],
];

const MECHANISMS: Array<[string, string[]]> = [
  ['Kinase inhibitor', ['TKI']],
  ['Checkpoint inhibitor', []],
  ['Covalent inhibitor', []],
  ['Allosteric inhibitor', []],
  ['Receptor antagonist', []],
  ['Receptor agonist', []],
  ['T-cell engager', []],
  ['Protein degradation', []],
  ['Gene silencing', ['RNA interference']],
  ['Synthetic lethality', []],
  ['Complement inhibition', []],
  ['Cytokine blockade', []],
  ['Antifibrotic', []],
  ['Incretin mimetic', []],
  ['Enzyme inhibitor', []],
  ['Ion channel modulator', []],
  ['Immune modulation', []],
  ['Epigenetic modulation', []],
];

const SPONSOR_HEADS = [
  'Northwind',
  'Bluewater',
  'Helix',
  'Meridian',
  'Aster',
  'Cobalt',
  'Lumen',
  'Orion',
  'Vireo',
  'Kestrel',
  'Summit',
  'Tidal',
  'Granite',
  'Beacon',
  'Solstice',
  'Halcyon',
  'Quill',
  'Arbor',
  'Cascade',
  'Ember',
];
const SPONSOR_TAILS = ['Therapeutics', 'Biosciences', 'Pharma', 'Oncology', 'Bio', 'Medicines', 'Genomics', 'Labs', 'Health', 'Biologics'];
const SPONSOR_PLACES = [
  '',
  ' Europe',
  ' Asia',
  ' Research',
  ' Holdings',
  ' Clinical',
  ' Institute',
  ' Foundation',
  ' Partners',
  ' Ventures',
  ' Sciences',
  ' Group',
  ' Trust',
  ' Network',
  ' Consortium',
  ' Alliance',
  ' Center',
  ' University',
  ' Hospital',
  ' College',
  ' Unit',
  ' Programme',
  ' Initiative',
  ' Collaborative',
  ' Society',
  ' Council',
  ' Agency',
  ' Fund',
  ' Office',
  ' Division',
  ' Campus',
];

const ASSET_STEMS = [
  'ala',
  'beri',
  'cori',
  'dava',
  'efi',
  'fola',
  'gira',
  'hexa',
  'ilo',
  'juna',
  'kira',
  'lumi',
  'mara',
  'nori',
  'ola',
  'pira',
  'quela',
  'rova',
  'sira',
  'tavo',
  'uni',
  'vela',
  'wino',
  'xila',
  'yara',
  'zeli',
];
const ASSET_SUFFIXES = [
  'mab',
  'tinib',
  'ciclib',
  'parib',
  'degib',
  'rafenib',
  'siran',
  'rsen',
  'cel',
  'tide',
  'stat',
  'lisib',
  'zumab',
  'ximab',
];

/** The seed's keyword catalogue, built once at start-up (a few hundred small objects). */
export class Catalogue {
  readonly keywords: Keyword[] = [];
  readonly byId = new Map<string, Keyword>();
  private readonly byType = new Map<KeywordType, Keyword[]>();

  constructor() {
    const add = (name: string, type: KeywordType, synonyms: string[], description: string): void => {
      const kw: Keyword = { id: uuidFor(`keyword:${name}`), name, type, synonyms, description };
      this.keywords.push(kw);
      this.byId.set(kw.id, kw);
      const list = this.byType.get(type) ?? [];
      list.push(kw);
      this.byType.set(type, list);
    };
    for (const [n, s] of TARGETS) add(n, 'target', s, `${n} is a therapeutic target tracked across papers, patents and trials.`);
    for (const [n, s] of DISEASES) add(n, 'disease', s, `${n}: indication with active research and clinical development.`);
    for (const [n, s] of MODALITIES) add(n, 'modality', s, `${n} as a therapeutic modality.`);
    for (const [n, s] of MECHANISMS) add(n, 'mechanism', s, `${n} as a mechanism of action.`);
    for (let i = 0; i < 80; i++) {
      const name = `${SPONSOR_HEADS[i % SPONSOR_HEADS.length]} ${SPONSOR_TAILS[(Math.floor(i / SPONSOR_HEADS.length) * 3 + i) % SPONSOR_TAILS.length]}`;
      if (this.keywords.some((k) => k.name === name)) continue;
      add(name, 'sponsor', [], `${name} sponsors research and clinical programmes.`);
    }
    add('Pembrolizumab', 'asset', ['Keytruda', 'MK-3475'], 'Anti-PD-1 monoclonal antibody.');
    add('Osimertinib', 'asset', ['AZD9291'], 'Third-generation EGFR tyrosine kinase inhibitor.');
    add('Sotorasib', 'asset', ['AMG 510'], 'Covalent KRAS G12C inhibitor.');
    for (let i = 0; this.byType.get('asset')!.length < 200; i++) {
      const stem = ASSET_STEMS[i % ASSET_STEMS.length]!;
      const mid = ASSET_STEMS[Math.floor(i / ASSET_STEMS.length) % ASSET_STEMS.length]!.slice(0, 2);
      const suffix = ASSET_SUFFIXES[i % ASSET_SUFFIXES.length]!;
      const name = `${stem[0]!.toUpperCase()}${stem.slice(1)}${mid}${suffix}`;
      if (this.byId.has(uuidFor(`keyword:${name}`))) continue;
      add(name, 'asset', [`RSI-${1000 + i}`], `${name}, an investigational ${suffix.endsWith('mab') ? 'antibody' : 'compound'}.`);
    }
  }

  ofType(type: KeywordType): readonly Keyword[] {
    return this.byType.get(type) ?? [];
  }

  /** Case-insensitive search on name and synonyms: exact name, exact synonym, prefix, substring. */
  search(q: string): Keyword[] {
    const needle = q.trim().toLowerCase();
    if (!needle) return [];
    const scored: Array<[number, Keyword]> = [];
    for (const kw of this.keywords) {
      const name = kw.name.toLowerCase();
      const syns = kw.synonyms.map((s) => s.toLowerCase());
      let rank = -1;
      if (name === needle) rank = 0;
      else if (syns.includes(needle)) rank = 1;
      else if (name.startsWith(needle)) rank = 2;
      else if (syns.some((s) => s.startsWith(needle))) rank = 3;
      else if (name.includes(needle) || syns.some((s) => s.includes(needle))) rank = 4;
      if (rank >= 0) scored.push([rank, kw]);
    }
    scored.sort((a, b) => a[0] - b[0] || a[1].name.localeCompare(b[1].name));
    return scored.map(([, kw]) => kw);
  }
}

/** Relation sizes fixed for a few well-known keywords, so tests and benchmarks can rely on them. */
const FIXED_TOTALS: Record<string, number> = {
  'Non-small cell lung cancer|assets': 5400,
  'Non-small cell lung cancer|sponsors|trials': 6200,
  'Non-small cell lung cancer|sponsors|papers': 2400,
  'EGFR|assets': 1200,
  'KRAS|assets': 640,
};

const STAGES = ['Preclinical', 'Phase 1', 'Phase 2', 'Phase 3', 'Approved', null] as const;

export interface RelationItem {
  id: string;
  name: string;
  count: number;
  stage?: string | null;
}

function relationKey(kw: Keyword, relation: Relation, activity?: Activity): string {
  return relation === 'sponsors' ? `${kw.name}|${relation}|${activity ?? 'trials'}` : `${kw.name}|${relation}`;
}

export function relationTotal(kw: Keyword, relation: Relation, activity?: Activity): number {
  const key = relationKey(kw, relation, activity);
  return FIXED_TOTALS[key] ?? intBetween(key, 0, 90);
}

/** Item `index` of a relation, ordered by descending count. */
export function relationItem(cat: Catalogue, kw: Keyword, relation: Relation, activity: Activity | undefined, index: number): RelationItem {
  const key = relationKey(kw, relation, activity);
  const total = relationTotal(kw, relation, activity);
  const poolType: KeywordType =
    relation === 'indications' ? 'disease' : relation === 'assets' ? 'asset' : relation === 'pipeline_targets' ? 'target' : 'sponsor';
  const pool = cat.ofType(poolType);
  const offset = intBetween(`${key}|offset`, 0, pool.length - 1);
  let name: string;
  let id: string;
  if (index < pool.length) {
    const kwItem = pool[(offset + index) % pool.length]!;
    name = kwItem.name;
    id = kwItem.id;
  } else {
    // Past the catalogue: synthesise distinct, plausible names for the long tail.
    const n = index - pool.length;
    if (poolType === 'sponsor') {
      name = `${SPONSOR_HEADS[n % SPONSOR_HEADS.length]} ${SPONSOR_TAILS[Math.floor(n / SPONSOR_HEADS.length) % SPONSOR_TAILS.length]}${SPONSOR_PLACES[Math.floor(n / 200) % SPONSOR_PLACES.length]}`;
    } else {
      name = `${poolType === 'asset' ? 'NX' : poolType === 'disease' ? 'Indication' : 'Target'}-${String(10000 + n)}`;
    }
    id = uuidFor(`relation-item:${poolType}:${name}`);
  }
  const top = Math.max(20, Math.round(total / 4));
  const count = Math.max(1, Math.round(top * (1 - index / Math.max(total, 1)) ** 2));
  const item: RelationItem = { id, name, count };
  if (relation === 'assets' || relation === 'pipeline_targets') {
    item.stage = STAGES[intBetween(`${key}|stage|${index}`, 0, STAGES.length - 1)] ?? null;
  }
  return item;
}

export interface ScoreValue {
  score: number;
  raw: number | null;
  label: string;
  description: string;
}

const SCORE_NAMES = ['composite', 'momentum', 'maturity', 'competition', 'risk', 'translation'] as const;

export function keywordCard(kw: Keyword): Record<string, unknown> {
  const activity = {
    papers: intBetween(`${kw.id}|papers`, 20, 48000),
    patents: intBetween(`${kw.id}|patents`, 0, 9000),
    trials: kw.type === 'sponsor' || kw.type === 'mechanism' ? null : intBetween(`${kw.id}|trials`, 0, 2400),
    assets: kw.type === 'asset' ? null : intBetween(`${kw.id}|assets`, 0, 800),
  };
  const scores: Record<string, unknown> = { as_of: '2026-11-01' };
  for (const name of SCORE_NAMES) {
    if (kw.type === 'sponsor' && name === 'translation') {
      scores[name] = null;
      continue;
    }
    const score = Math.round(unit(`${kw.id}|${name}`) * 1000) / 10;
    const label = score >= 70 ? 'High' : score >= 40 ? 'Medium' : 'Low';
    scores[name] = {
      score,
      raw: name === 'composite' ? null : Math.round(unit(`${kw.id}|${name}|raw`) * 10000) / 100,
      label,
      description: `${label} ${name} relative to keywords of the same type.`,
    } satisfies ScoreValue;
  }
  return {
    id: kw.id,
    name: kw.name,
    type: kw.type,
    description: kw.description,
    synonyms: kw.synonyms,
    activity,
    scores,
  };
}

export const SIGNAL_TYPES = ['target', 'disease', 'modality', 'mechanism'] as const;
export type SignalType = (typeof SIGNAL_TYPES)[number];
export const ANALYSIS_MODES = {
  most_promising: 'Most promising',
  novel_signal_scout: 'Novel signal scout',
  validated_opportunity: 'Validated opportunity',
} as const;
export type AnalysisMode = keyof typeof ANALYSIS_MODES;

export interface SignalSeed {
  keyword_id: string;
  signal_keyword_id: string;
  name: string;
  type: SignalType;
  /** 1-based overall rank by the most_promising ordering; a run on a signal whose rank is a multiple of 7 fails. */
  rank: number;
}

/** The discovery candidates a finished scan yields for a project: 10 of each signal type. */
export function projectSignals(cat: Catalogue, projectId: string, anchor: Keyword): SignalSeed[] {
  const out: Array<Omit<SignalSeed, 'rank'> & { weight: number }> = [];
  for (const type of SIGNAL_TYPES) {
    const pool = cat.ofType(type).filter((k) => k.id !== anchor.id);
    const start = intBetween(`${projectId}|${type}|start`, 0, pool.length - 1);
    for (let i = 0; i < 10; i++) {
      const kw = pool[(start + i) % pool.length]!;
      out.push({
        keyword_id: anchor.id,
        signal_keyword_id: kw.id,
        name: kw.name,
        type,
        weight: unit(`${projectId}|${kw.id}|most_promising`),
      });
    }
  }
  out.sort((a, b) => b.weight - a.weight);
  return out.map(({ weight: _w, ...s }, i) => ({ ...s, rank: i + 1 }));
}

export function modeWeight(projectId: string, signalKeywordId: string, mode: AnalysisMode, rank: number): number {
  return mode === 'most_promising' ? -rank : unit(`${projectId}|${signalKeywordId}|${mode}`);
}
