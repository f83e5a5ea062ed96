import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{c as v,d as D}from"./chunk-OXLWUZDX.js";import{a as P}from"./chunk-RHHC76I3.js";import{a as O,e as S,g as B}from"./chunk-B5KKDKYS.js";import{b as x}from"./chunk-WOMH7CNL.js";import{a as E,e as k}from"./chunk-A6GBM2XZ.js";import{e as w,f as z,l as I,q as C}from"./chunk-SKQWT5QY.js";import q from"node:fs";import V from"node:path";import $ from"node:v8";import T from"node:fs";var N=256,W=8,K=16*1024*1024,j=1e4,A=0,M=1,H=2,Y=`
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
      let fd;
      try {
        fd = fs.openSync(paths[i], flags);
        const size = fs.fstatSync(fd).size;
        if (size > maxBytes) continue;
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
`;function _(t){let e=T.constants.O_NOFOLLOW;if(e===void 0||t.length===0)return;let r=new SharedArrayBuffer(12),s=new Int32Array(r),a,f,{MessageChannel:l,receiveMessageOnPort:m,Worker:h}=k();try{let c=new l;f=c.port1,a=new h(Y,{eval:!0,workerData:{paths:t,flags:T.constants.O_RDONLY|e,port:c.port2,shared:r,batch:N,ahead:W,maxBytes:K},transferList:[c.port2]}),a.unref(),a.on("error",()=>{})}catch{return}let u=0,o,d=!1,p=()=>{d||(d=!0,f.close(),a.terminate())},g=()=>{let c=Atomics.load(s,M),y=Date.now()+j;for(;Atomics.load(s,A)<=c;){if(Atomics.load(s,H)===1&&Atomics.load(s,A)<=c||Date.now()>y)return;Atomics.wait(s,A,c,100)}let b=m(f);if(!b)return;Atomics.add(s,M,1),Atomics.notify(s,M);let{sizes:n,bytes:i}=b.message;return{sizes:n,bytes:Buffer.from(i),at:0,i:0}};return{next(){if(d||u>=t.length)return;if(u++,(!o||o.i>=o.sizes.length)&&(o=g(),!o)){p();return}let c=o.sizes[o.i++];if(c<0)return;let y=o.bytes.subarray(o.at,o.at+c);return o.at+=c,u>=t.length&&p(),y},close:p}}var F=5,R=["id","title","type","tags","links","created","updated","url","appliesTo","kernel","host","aliases","rules","path","data","bodyLength"];function G(t){let e=t.entry;return[t.path,t.id,t.mtimeMs,t.ctimeMs,t.size,t.ino,e?R.map(r=>e[r]):0,t.problems.length?t.problems:0]}function U(t){let e;if(Array.isArray(t[6])){let r={};R.forEach((s,a)=>{t[6][a]!==void 0&&(r[s]=t[6][a])}),e=r}return{path:t[0],id:t[1],mtimeMs:t[2],ctimeMs:t[3],size:t[4],ino:t[5],entry:e,problems:Array.isArray(t[7])?t[7]:[]}}function L(t){return V.join(z(t),"catalog.v8")}function X(t){try{let e=$.deserialize(q.readFileSync(L(t)));return e?.v!==F||!Array.isArray(e.items)?new Map:new Map(e.items.map(r=>[r[0],U(r)]))}catch{return new Map}}function J(t,e,r,s,a){let f;try{f=C(t,e.path,a)}catch(u){let o=u;return{...e,problems:[{rule:"unreadable",message:o.message.replace(/^[^:]+:\d+: /,""),file:e.path,line:o.data?.line??1}]}}let{entry:l,problems:m}=r(f,e.path);if(!l)return{...e,problems:m};let h={...e,entry:P(l),problems:m};return s?.(h,f),h}var Q=2e3;async function mt(t,e={}){let r=await v(t,"catalog");if(r)return r;let s=O(t),a=I(t);e.writeCache!==!1&&S(t)!==s&&B(t,s,a);let f=X(t),l=[],m=a.filter(n=>{let i=f.get(n.path);return!(i&&w(i,n))}),h=m.length>0?(await import("./entry-HC2ARJWN.js")).parseEntry:void 0,u=t.endsWith("/")?t:`${t}/`,o=m.length>=Q?_(m.map(n=>u+n.path)):void 0,d;try{d=a.map(n=>{let i=f.get(n.path);return i&&w(i,n)?i:(l.push(n.path),e.onProgress&&(l.length%250===0||l.length===m.length)&&e.onProgress(l.length,m.length),J(t,n,h,e.onText,o?.next()))})}finally{o?.close()}if(d.sort((n,i)=>n.path<i.path?-1:n.path>i.path?1:0),(l.length>0||f.size!==d.length)&&e.writeCache!==!1)try{x(L(t),$.serialize({v:F,items:d.map(G)}),{fsync:!1})}catch{}let p=new Map,g=new Map;for(let n of d){if(!n.entry)continue;let i=g.get(n.entry.id)??[];i.push(n.path),g.set(n.entry.id,i),p.has(n.entry.id)||p.set(n.entry.id,n.entry)}let c=new Map([...g].filter(([,n])=>n.length>1)),y=E().createHash("sha1");for(let n of d)y.update(`${n.path}\0${n.mtimeMs}\0${n.ctimeMs}\0${n.size}\0${n.ino}
`);let b={dir:t,items:d,byId:p,duplicates:c,fingerprint:y.digest("hex"),reparsed:l};return D(t,"catalog",{...b,reparsed:[]}),b}function ut(t){let e=[];for(let r of t.items){e.push(...r.problems);let s=r.entry;if(s)for(let a of s.links)t.byId.has(a.to)||e.push({rule:"link-dangling",message:`link ${a.rel} \u2192 ${a.to}: no entry has that id`,file:r.path,line:2,id:s.id})}for(let[r,s]of t.duplicates)for(let a of s)e.push({rule:"id-duplicate",message:`id ${r} is claimed by ${s.length} files: ${s.join(", ")}`,file:a,line:2,id:r});return e}function pt(t){let e=r=>r.updated??r.created??"";return[...t].sort((r,s)=>e(r)<e(s)?1:e(r)>e(s)?-1:r.id<s.id?1:-1)}export{J as a,mt as b,ut as c,pt as d};
