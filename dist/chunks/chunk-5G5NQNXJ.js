"use strict";
var H=Object.create;var z=Object.defineProperty;var K=Object.getOwnPropertyDescriptor;var R=Object.getOwnPropertyNames;var U=Object.getPrototypeOf,Y=Object.prototype.hasOwnProperty;var G=(t,e)=>{for(var s in e)z(t,s,{get:e[s],enumerable:!0})},D=(t,e,s,a)=>{if(e&&typeof e=="object"||typeof e=="function")for(let i of R(e))!Y.call(t,i)&&i!==s&&z(t,i,{get:()=>e[i],enumerable:!(a=K(e,i))||a.enumerable});return t};var k=(t,e,s)=>(s=t!=null?H(U(t)):{},D(e||!t||!t.__esModule?z(s,"default",{value:t,enumerable:!0}):s,t)),J=t=>D(z({},"__esModule",{value:!0}),t);var lt={};G(lt,{a:()=>x,b:()=>q,c:()=>F,d:()=>L,e:()=>T});module.exports=J(lt);var v=require("./chunk-SBK4IMIQ.js"),N=require("./chunk-SQDBGZ7B.js"),w=require("./chunk-7TH3WHFO.js"),g=require("./chunk-5JNCPCFU.js"),P=require("./chunk-OPXNXT4M.js"),h=require("./chunk-TE2E62KE.js"),_=require("./chunk-PELGRCMF.js"),E=require("./chunk-HTLPILVN.js"),W=require("./chunk-UJR3LLUV.js"),j=k(require("node:path")),M=k(require("node:fs")),Q=256,V=8,X=16*1024*1024,Z=1e4,$=0,B=1,tt=2,et=`
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
`;function st(t){let e=M.default.constants.O_NOFOLLOW;if(e===void 0||t.length===0)return;let s=new SharedArrayBuffer(12),a=new Int32Array(s),i,f,{MessageChannel:c,receiveMessageOnPort:d,Worker:b}=(0,g.e)();try{let l=new c;f=l.port1,i=new b(et,{eval:!0,workerData:{paths:t.map(m=>m??""),flags:M.default.constants.O_RDONLY|e|M.default.constants.O_NONBLOCK,port:l.port2,shared:s,batch:Q,ahead:V,maxBytes:X},transferList:[l.port2]}),i.unref(),i.on("error",()=>{})}catch{return}let p=0,n,u=!1,y=()=>{u||(u=!0,f.close(),i.terminate())},O=()=>{let l=Atomics.load(a,B),m=Date.now()+Z;for(;Atomics.load(a,$)<=l;){if(Atomics.load(a,tt)===1&&Atomics.load(a,$)<=l||Date.now()>m)return;Atomics.wait(a,$,l,100)}let r=d(f);if(!r)return;Atomics.add(a,B,1),Atomics.notify(a,B);let{sizes:o,bytes:A}=r.message;return{sizes:o,bytes:Buffer.from(A),at:0,i:0}};return{next(){if(u||p>=t.length)return;if(p++,(!n||n.i>=n.sizes.length)&&(n=O(),!n)){y();return}let l=n.sizes[n.i++];if(l<0)return;let m=n.bytes.subarray(n.at,n.at+l);return n.at+=l,p>=t.length&&y(),m},close:y}}var S=9,I=["id","title","type","tags","links","created","updated","url","appliesTo","kernel","host","aliases","rules","path","data","bodyLength","bodyLinks","typeWritten"];function rt(t){let e=t.entry;return[t.path,t.id,t.mtimeMs,t.ctimeMs,t.size,t.ino,e?I.map(s=>e[s]):0,t.problems.length?t.problems:0]}function at(t){let e;if(Array.isArray(t[6])){let s={};I.forEach((a,i)=>{t[6][i]!==void 0&&(s[a]=t[6][i])}),e=s}return{path:t[0],id:t[1],mtimeMs:t[2],ctimeMs:t[3],size:t[4],ino:t[5],entry:e,problems:Array.isArray(t[7])?t[7]:[]}}function C(t){return j.default.join((0,h.h)(t),"catalog.v8")}var it=512*1024*1024;function nt(t){try{let e=(0,E.e)(C(t),it);if(!e)return new Map;let s=(0,g.f)().deserialize(e);return s?.v!==S||!Array.isArray(s.items)?new Map:new Map(s.items.map(a=>[a[0],at(a)]))}catch{return new Map}}function x(t,e,s,a,i){let f;try{f=(0,h.E)(t,e.path,i)}catch(p){let n=p;return{...e,problems:[{rule:"unreadable",message:(0,W.d)(n),file:e.path,line:n.data?.line??1}]}}let{entry:c,problems:d}=s(f,e.path);if(!c)return{...e,problems:d};let b={...e,entry:(0,N.a)(c),problems:d};return a?.(b,f),b}var ot=2e3;async function q(t,e={}){let s=await(0,v.c)(t,"catalog");if(s)return s;let a=(0,w.a)(t),i=(0,h.s)(t);e.writeCache!==!1&&(0,w.e)(t)!==a&&(0,w.g)(t,a,i);let f=nt(t),c=[],d=i.filter(r=>{let o=f.get(r.path);return!(o&&(0,h.g)(o,r))});e.onParse?.(d.length);let b=d.length>0?(await Promise.resolve().then(()=>k(require("./entry-W7CKFNW6.js")))).parseEntry:void 0,p=d.length>=ot?st(d.map(r=>(0,h.D)(t,r.path))):void 0,n;try{n=i.map(r=>{let o=f.get(r.path);return o&&(0,h.g)(o,r)?o.id===r.id?o:{...o,id:r.id}:(c.push(r.path),e.onProgress&&(c.length%250===0||c.length===d.length)&&e.onProgress(c.length,d.length),x(t,r,b,e.onText,p?.next()))})}finally{p?.close()}if(n.sort((r,o)=>r.path<o.path?-1:r.path>o.path?1:0),(c.length>0||f.size!==n.length)&&e.writeCache!==!1)try{(0,P.b)(C(t),(0,g.f)().serialize({v:S,items:n.map(rt)}),{fsync:!1})}catch{}let u=new Map,y=new Map;for(let r of n){let o=r.entry?.id??((0,_.n)(r.path)?void 0:r.id||void 0);if(!o)continue;let A=y.get(o)??[];A.push(r.path),y.set(o,A),r.entry&&!u.has(o)&&u.set(o,r.entry)}let O=new Map([...y].filter(([,r])=>r.length>1)),l=(0,g.a)().createHash("sha1");for(let r of n)l.update(`${r.path}\0${r.mtimeMs}\0${r.ctimeMs}\0${r.size}\0${r.ino}
`);let m={dir:t,items:n,byId:u,duplicates:O,fingerprint:l.digest("hex"),reparsed:c};return(0,v.d)(t,"catalog",{...m,reparsed:[]}),m}function F(t){let e=[];for(let s of t.items){e.push(...s.problems);let a=s.entry;if(a)for(let i of a.links)t.byId.has(i.to)||e.push({rule:"link-dangling",message:`link ${i.rel} \u2192 ${i.to}: no entry has that id`,file:s.path,line:2,id:a.id})}for(let[s,a]of t.duplicates)for(let i of a)e.push({rule:"id-duplicate",message:`id ${s} is claimed by ${a.length} files: ${a.join(", ")}`,file:i,line:2,id:s});return e}function L(t,e){let s=t.updated??t.created??"",a=e.updated??e.created??"";return s<a?1:s>a?-1:t.id<e.id?1:-1}function T(t){return[...t].sort(L)}
