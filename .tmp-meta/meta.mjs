import { build } from 'esbuild';
import { options } from '/work/main/src/build/bundle.mjs';
const r = await build({ ...options, write: false, outdir: '/tmp/metaout' });
const outs = r.metafile.outputs;
for (const [name, o] of Object.entries(outs)) {
  if (!name.endsWith('main.js')) continue;
  console.log(name, o.bytes);
  const ins = Object.entries(o.inputs).sort((a,b)=>b[1].bytesInOutput-a[1].bytesInOutput);
  for (const [i, v] of ins.slice(0,40)) console.log(v.bytesInOutput, i);
  console.log('imports', o.imports.filter(i=>i.kind==='import-statement').map(i=>i.path+' '+outs[i.path]?.bytes));
}
