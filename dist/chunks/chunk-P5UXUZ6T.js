"use strict";
var T=Object.create;var A=Object.defineProperty;var W=Object.getOwnPropertyDescriptor;var H=Object.getOwnPropertyNames;var K=Object.getPrototypeOf,R=Object.prototype.hasOwnProperty;var U=(e,t)=>{for(var s in t)A(e,s,{get:t[s],enumerable:!0})},L=(e,t,s,a)=>{if(t&&typeof t=="object"||typeof t=="function")for(let i of H(t))!R.call(e,i)&&i!==s&&A(e,i,{get:()=>t[i],enumerable:!(a=W(t,i))||a.enumerable});return e};var z=(e,t,s)=>(s=e!=null?T(K(e)):{},L(t||!e||!e.__esModule?A(s,"default",{value:e,enumerable:!0}):s,e)),Y=e=>L(A({},"__esModule",{value:!0}),e);var ie={};U(ie,{a:()=>B,b:()=>F,c:()=>j,d:()=>x,e:()=>q});module.exports=Y(ie);var v=require("./chunk-ZPJNFPR7.js"),C=require("./chunk-V6MTGQKG.js"),w=require("./chunk-6ICJGUDM.js"),g=require("./chunk-5JNCPCFU.js"),d=require("./chunk-M2IC35KG.js"),N=require("./chunk-XCSNM4QW.js"),P=z(require("node:fs")),_=z(require("node:path")),M=z(require("node:fs")),G=256,J=8,Q=16*1024*1024,V=1e4,k=0,$=1,X=2,Z=`
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
`;function ee(e){let t=M.default.constants.O_NOFOLLOW;if(t===void 0||e.length===0)return;let s=new SharedArrayBuffer(12),a=new Int32Array(s),i,f,{MessageChannel:c,receiveMessageOnPort:h,Worker:b}=(0,g.e)();try{let o=new c;f=o.port1,i=new b(Z,{eval:!0,workerData:{paths:e.map(u=>u??""),flags:M.default.constants.O_RDONLY|t|M.default.constants.O_NONBLOCK,port:o.port2,shared:s,batch:G,ahead:J,maxBytes:Q},transferList:[o.port2]}),i.unref(),i.on("error",()=>{})}catch{return}let p=0,n,m=!1,y=()=>{m||(m=!0,f.close(),i.terminate())},O=()=>{let o=Atomics.load(a,$),u=Date.now()+V;for(;Atomics.load(a,k)<=o;){if(Atomics.load(a,X)===1&&Atomics.load(a,k)<=o||Date.now()>u)return;Atomics.wait(a,k,o,100)}let r=h(f);if(!r)return;Atomics.add(a,$,1),Atomics.notify(a,$);let{sizes:l,bytes:E}=r.message;return{sizes:l,bytes:Buffer.from(E),at:0,i:0}};return{next(){if(m||p>=e.length)return;if(p++,(!n||n.i>=n.sizes.length)&&(n=O(),!n)){y();return}let o=n.sizes[n.i++];if(o<0)return;let u=n.bytes.subarray(n.at,n.at+o);return n.at+=o,p>=e.length&&y(),u},close:y}}var S=6,D=["id","title","type","tags","links","created","updated","url","appliesTo","kernel","host","aliases","rules","path","data","bodyLength","bodyLinks"];function te(e){let t=e.entry;return[e.path,e.id,e.mtimeMs,e.ctimeMs,e.size,e.ino,t?D.map(s=>t[s]):0,e.problems.length?e.problems:0]}function se(e){let t;if(Array.isArray(e[6])){let s={};D.forEach((a,i)=>{e[6][i]!==void 0&&(s[a]=e[6][i])}),t=s}return{path:e[0],id:e[1],mtimeMs:e[2],ctimeMs:e[3],size:e[4],ino:e[5],entry:t,problems:Array.isArray(e[7])?e[7]:[]}}function I(e){return _.default.join((0,d.g)(e),"catalog.v8")}function re(e){try{let t=(0,g.f)().deserialize(P.default.readFileSync(I(e)));return t?.v!==S||!Array.isArray(t.items)?new Map:new Map(t.items.map(s=>[s[0],se(s)]))}catch{return new Map}}function B(e,t,s,a,i){let f;try{f=(0,d.w)(e,t.path,i)}catch(p){let n=p;return{...t,problems:[{rule:"unreadable",message:n.message.replace(/^[^:]+:\d+: /,""),file:t.path,line:n.data?.line??1}]}}let{entry:c,problems:h}=s(f,t.path);if(!c)return{...t,problems:h};let b={...t,entry:(0,C.a)(c),problems:h};return a?.(b,f),b}var ae=2e3;async function F(e,t={}){let s=await(0,v.c)(e,"catalog");if(s)return s;let a=(0,w.a)(e),i=(0,d.o)(e);t.writeCache!==!1&&(0,w.e)(e)!==a&&(0,w.g)(e,a,i);let f=re(e),c=[],h=i.filter(r=>{let l=f.get(r.path);return!(l&&(0,d.f)(l,r))});t.onParse?.(h.length);let b=h.length>0?(await Promise.resolve().then(()=>z(require("./entry-ZMYHD6H5.js")))).parseEntry:void 0,p=h.length>=ae?ee(h.map(r=>(0,d.v)(e,r.path))):void 0,n;try{n=i.map(r=>{let l=f.get(r.path);return l&&(0,d.f)(l,r)?l:(c.push(r.path),t.onProgress&&(c.length%250===0||c.length===h.length)&&t.onProgress(c.length,h.length),B(e,r,b,t.onText,p?.next()))})}finally{p?.close()}if(n.sort((r,l)=>r.path<l.path?-1:r.path>l.path?1:0),(c.length>0||f.size!==n.length)&&t.writeCache!==!1)try{(0,N.b)(I(e),(0,g.f)().serialize({v:S,items:n.map(te)}),{fsync:!1})}catch{}let m=new Map,y=new Map;for(let r of n){if(!r.entry)continue;let l=y.get(r.entry.id)??[];l.push(r.path),y.set(r.entry.id,l),m.has(r.entry.id)||m.set(r.entry.id,r.entry)}let O=new Map([...y].filter(([,r])=>r.length>1)),o=(0,g.a)().createHash("sha1");for(let r of n)o.update(`${r.path}\0${r.mtimeMs}\0${r.ctimeMs}\0${r.size}\0${r.ino}
`);let u={dir:e,items:n,byId:m,duplicates:O,fingerprint:o.digest("hex"),reparsed:c};return(0,v.d)(e,"catalog",{...u,reparsed:[]}),u}function j(e){let t=[];for(let s of e.items){t.push(...s.problems);let a=s.entry;if(a)for(let i of a.links)e.byId.has(i.to)||t.push({rule:"link-dangling",message:`link ${i.rel} \u2192 ${i.to}: no entry has that id`,file:s.path,line:2,id:a.id})}for(let[s,a]of e.duplicates)for(let i of a)t.push({rule:"id-duplicate",message:`id ${s} is claimed by ${a.length} files: ${a.join(", ")}`,file:i,line:2,id:s});return t}function x(e,t){let s=e.updated??e.created??"",a=t.updated??t.created??"";return s<a?1:s>a?-1:e.id<t.id?1:-1}function q(e){return[...e].sort(x)}
