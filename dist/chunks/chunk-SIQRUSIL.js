import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{c as D,d as T}from"./chunk-RGAVA2OC.js";import{a as v}from"./chunk-RHHC76I3.js";import{a as B,e as P,g as S}from"./chunk-HXVY6QRO.js";import{a as E,e as k}from"./chunk-A6GBM2XZ.js";import{e as b,f as z,l as C,q as I,r as O}from"./chunk-O2URCRHJ.js";import{b as x}from"./chunk-WOMH7CNL.js";import V from"node:fs";import G from"node:path";import F from"node:v8";import w from"node:fs";var K=256,W=8,j=16*1024*1024,H=1e4,A=0,M=1,Y=2,q=`
const fs = require('node:fs');
const { workerData } = require('node:worker_threads');
const { paths, flags, port, shared, batch, ahead, maxBytes } = workerData;
const state = new Int32Array(shared);
try {
  for (let start = 0; start < paths.length; start += batch) {
    const end = Math.min(paths.length, start + batch);
    const sizes = new Int32Array(end - start).fill(-1);
    const parts = [];
    let total = 0;
    for (let i = start; i < end; i++) {
      if (!paths[i]) continue;
      let fd;
      try {
        fd = fs.openSync(paths[i], flags);
        const st = fs.fstatSync(fd);
        if (!st.isFile() || st.size > maxBytes) continue;
        const size = st.size;
        const buf = Buffer.allocUnsafe(size);
        let got = 0;
        while (got < size) {
          const n = fs.readSync(fd, buf, got, size - got, got);
          if (n === 0) break;
          got += n;
        }
        if (got !== size || fs.readSync(fd, Buffer.alloc(1), 0, 1, size) !== 0) continue; // changed while read
        parts.push(buf);
        sizes[i - start] = size;
        total += size;
      } catch {
        // left to the caller
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    }
    const bytes = Buffer.concat(parts, total);
    while (Atomics.load(state, 0) - Atomics.load(state, 1) >= ahead) Atomics.wait(state, 1, Atomics.load(state, 1), 50);
    const whole = bytes.byteOffset === 0 && bytes.length === bytes.buffer.byteLength;
    const ab = whole ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    port.postMessage({ sizes, bytes: ab }, [ab, sizes.buffer]);
    Atomics.add(state, 0, 1);
    Atomics.notify(state, 0);
  }
} finally {
  Atomics.store(state, 2, 1);
  Atomics.notify(state, 0);
}
`;function _(t){let e=w.constants.O_NOFOLLOW;if(e===void 0||t.length===0)return;let r=new SharedArrayBuffer(12),s=new Int32Array(r),o,f,{MessageChannel:l,receiveMessageOnPort:d,Worker:y}=k();try{let i=new l;f=i.port1,o=new y(q,{eval:!0,workerData:{paths:t.map(u=>u??""),flags:w.constants.O_RDONLY|e|w.constants.O_NONBLOCK,port:i.port2,shared:r,batch:K,ahead:W,maxBytes:j},transferList:[i.port2]}),o.unref(),o.on("error",()=>{})}catch{return}let m=0,a,p=!1,h=()=>{p||(p=!0,f.close(),o.terminate())},g=()=>{let i=Atomics.load(s,M),u=Date.now()+H;for(;Atomics.load(s,A)<=i;){if(Atomics.load(s,Y)===1&&Atomics.load(s,A)<=i||Date.now()>u)return;Atomics.wait(s,A,i,100)}let n=d(f);if(!n)return;Atomics.add(s,M,1),Atomics.notify(s,M);let{sizes:c,bytes:$}=n.message;return{sizes:c,bytes:Buffer.from($),at:0,i:0}};return{next(){if(p||m>=t.length)return;if(m++,(!a||a.i>=a.sizes.length)&&(a=g(),!a)){h();return}let i=a.sizes[a.i++];if(i<0)return;let u=a.bytes.subarray(a.at,a.at+i);return a.at+=i,m>=t.length&&h(),u},close:h}}var N=5,L=["id","title","type","tags","links","created","updated","url","appliesTo","kernel","host","aliases","rules","path","data","bodyLength"];function U(t){let e=t.entry;return[t.path,t.id,t.mtimeMs,t.ctimeMs,t.size,t.ino,e?L.map(r=>e[r]):0,t.problems.length?t.problems:0]}function X(t){let e;if(Array.isArray(t[6])){let r={};L.forEach((s,o)=>{t[6][o]!==void 0&&(r[s]=t[6][o])}),e=r}return{path:t[0],id:t[1],mtimeMs:t[2],ctimeMs:t[3],size:t[4],ino:t[5],entry:e,problems:Array.isArray(t[7])?t[7]:[]}}function R(t){return G.join(z(t),"catalog.v8")}function J(t){try{let e=F.deserialize(V.readFileSync(R(t)));return e?.v!==N||!Array.isArray(e.items)?new Map:new Map(e.items.map(r=>[r[0],X(r)]))}catch{return new Map}}function Q(t,e,r,s,o){let f;try{f=O(t,e.path,o)}catch(m){let a=m;return{...e,problems:[{rule:"unreadable",message:a.message.replace(/^[^:]+:\d+: /,""),file:e.path,line:a.data?.line??1}]}}let{entry:l,problems:d}=r(f,e.path);if(!l)return{...e,problems:d};let y={...e,entry:v(l),problems:d};return s?.(y,f),y}var Z=2e3;async function ut(t,e={}){let r=await D(t,"catalog");if(r)return r;let s=B(t),o=C(t);e.writeCache!==!1&&P(t)!==s&&S(t,s,o);let f=J(t),l=[],d=o.filter(n=>{let c=f.get(n.path);return!(c&&b(c,n))}),y=d.length>0?(await import("./entry-IW6OGKRA.js")).parseEntry:void 0,m=d.length>=Z?_(d.map(n=>I(t,n.path))):void 0,a;try{a=o.map(n=>{let c=f.get(n.path);return c&&b(c,n)?c:(l.push(n.path),e.onProgress&&(l.length%250===0||l.length===d.length)&&e.onProgress(l.length,d.length),Q(t,n,y,e.onText,m?.next()))})}finally{m?.close()}if(a.sort((n,c)=>n.path<c.path?-1:n.path>c.path?1:0),(l.length>0||f.size!==a.length)&&e.writeCache!==!1)try{x(R(t),F.serialize({v:N,items:a.map(U)}),{fsync:!1})}catch{}let p=new Map,h=new Map;for(let n of a){if(!n.entry)continue;let c=h.get(n.entry.id)??[];c.push(n.path),h.set(n.entry.id,c),p.has(n.entry.id)||p.set(n.entry.id,n.entry)}let g=new Map([...h].filter(([,n])=>n.length>1)),i=E().createHash("sha1");for(let n of a)i.update(`${n.path}\0${n.mtimeMs}\0${n.ctimeMs}\0${n.size}\0${n.ino}
`);let u={dir:t,items:a,byId:p,duplicates:g,fingerprint:i.digest("hex"),reparsed:l};return T(t,"catalog",{...u,reparsed:[]}),u}function pt(t){let e=[];for(let r of t.items){e.push(...r.problems);let s=r.entry;if(s)for(let o of s.links)t.byId.has(o.to)||e.push({rule:"link-dangling",message:`link ${o.rel} \u2192 ${o.to}: no entry has that id`,file:r.path,line:2,id:s.id})}for(let[r,s]of t.duplicates)for(let o of s)e.push({rule:"id-duplicate",message:`id ${r} is claimed by ${s.length} files: ${s.join(", ")}`,file:o,line:2,id:r});return e}function ht(t){let e=r=>r.updated??r.created??"";return[...t].sort((r,s)=>e(r)<e(s)?1:e(r)>e(s)?-1:r.id<s.id?1:-1)}export{Q as a,ut as b,pt as c,ht as d};
