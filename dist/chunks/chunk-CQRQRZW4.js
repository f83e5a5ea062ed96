"use strict";
var E=Object.create;var A=Object.defineProperty;var T=Object.getOwnPropertyDescriptor;var W=Object.getOwnPropertyNames;var H=Object.getPrototypeOf,K=Object.prototype.hasOwnProperty;var R=(e,t)=>{for(var s in t)A(e,s,{get:t[s],enumerable:!0})},x=(e,t,s,r)=>{if(t&&typeof t=="object"||typeof t=="function")for(let i of W(t))!K.call(e,i)&&i!==s&&A(e,i,{get:()=>t[i],enumerable:!(r=T(t,i))||r.enumerable});return e};var z=(e,t,s)=>(s=e!=null?E(H(e)):{},x(t||!e||!e.__esModule?A(s,"default",{value:e,enumerable:!0}):s,e)),U=e=>x(A({},"__esModule",{value:!0}),e);var re={};R(re,{a:()=>B,b:()=>_,c:()=>F,d:()=>j});module.exports=U(re);var O=require("./chunk-DNUFYT22.js"),I=require("./chunk-ROC6KKKA.js"),w=require("./chunk-T327S4ZY.js"),g=require("./chunk-5JNCPCFU.js"),p=require("./chunk-MT6CVZ2C.js"),C=require("./chunk-XCSNM4QW.js"),N=z(require("node:fs")),P=z(require("node:path")),M=z(require("node:fs")),Y=256,G=8,J=16*1024*1024,Q=1e4,k=0,$=1,V=2,X=`
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
`;function Z(e){let t=M.default.constants.O_NOFOLLOW;if(t===void 0||e.length===0)return;let s=new SharedArrayBuffer(12),r=new Int32Array(s),i,f,{MessageChannel:c,receiveMessageOnPort:h,Worker:b}=(0,g.e)();try{let o=new c;f=o.port1,i=new b(X,{eval:!0,workerData:{paths:e.map(m=>m??""),flags:M.default.constants.O_RDONLY|t|M.default.constants.O_NONBLOCK,port:o.port2,shared:s,batch:Y,ahead:G,maxBytes:J},transferList:[o.port2]}),i.unref(),i.on("error",()=>{})}catch{return}let d=0,n,u=!1,y=()=>{u||(u=!0,f.close(),i.terminate())},v=()=>{let o=Atomics.load(r,$),m=Date.now()+Q;for(;Atomics.load(r,k)<=o;){if(Atomics.load(r,V)===1&&Atomics.load(r,k)<=o||Date.now()>m)return;Atomics.wait(r,k,o,100)}let a=h(f);if(!a)return;Atomics.add(r,$,1),Atomics.notify(r,$);let{sizes:l,bytes:q}=a.message;return{sizes:l,bytes:Buffer.from(q),at:0,i:0}};return{next(){if(u||d>=e.length)return;if(d++,(!n||n.i>=n.sizes.length)&&(n=v(),!n)){y();return}let o=n.sizes[n.i++];if(o<0)return;let m=n.bytes.subarray(n.at,n.at+o);return n.at+=o,d>=e.length&&y(),m},close:y}}var L=5,S=["id","title","type","tags","links","created","updated","url","appliesTo","kernel","host","aliases","rules","path","data","bodyLength"];function ee(e){let t=e.entry;return[e.path,e.id,e.mtimeMs,e.ctimeMs,e.size,e.ino,t?S.map(s=>t[s]):0,e.problems.length?e.problems:0]}function te(e){let t;if(Array.isArray(e[6])){let s={};S.forEach((r,i)=>{e[6][i]!==void 0&&(s[r]=e[6][i])}),t=s}return{path:e[0],id:e[1],mtimeMs:e[2],ctimeMs:e[3],size:e[4],ino:e[5],entry:t,problems:Array.isArray(e[7])?e[7]:[]}}function D(e){return P.default.join((0,p.g)(e),"catalog.v8")}function se(e){try{let t=(0,g.f)().deserialize(N.default.readFileSync(D(e)));return t?.v!==L||!Array.isArray(t.items)?new Map:new Map(t.items.map(s=>[s[0],te(s)]))}catch{return new Map}}function B(e,t,s,r,i){let f;try{f=(0,p.u)(e,t.path,i)}catch(d){let n=d;return{...t,problems:[{rule:"unreadable",message:n.message.replace(/^[^:]+:\d+: /,""),file:t.path,line:n.data?.line??1}]}}let{entry:c,problems:h}=s(f,t.path);if(!c)return{...t,problems:h};let b={...t,entry:(0,I.a)(c),problems:h};return r?.(b,f),b}var ae=2e3;async function _(e,t={}){let s=await(0,O.c)(e,"catalog");if(s)return s;let r=(0,w.a)(e),i=(0,p.o)(e);t.writeCache!==!1&&(0,w.e)(e)!==r&&(0,w.g)(e,r,i);let f=se(e),c=[],h=i.filter(a=>{let l=f.get(a.path);return!(l&&(0,p.f)(l,a))});t.onParse?.(h.length);let b=h.length>0?(await Promise.resolve().then(()=>z(require("./entry-MJUTL7DV.js")))).parseEntry:void 0,d=h.length>=ae?Z(h.map(a=>(0,p.t)(e,a.path))):void 0,n;try{n=i.map(a=>{let l=f.get(a.path);return l&&(0,p.f)(l,a)?l:(c.push(a.path),t.onProgress&&(c.length%250===0||c.length===h.length)&&t.onProgress(c.length,h.length),B(e,a,b,t.onText,d?.next()))})}finally{d?.close()}if(n.sort((a,l)=>a.path<l.path?-1:a.path>l.path?1:0),(c.length>0||f.size!==n.length)&&t.writeCache!==!1)try{(0,C.b)(D(e),(0,g.f)().serialize({v:L,items:n.map(ee)}),{fsync:!1})}catch{}let u=new Map,y=new Map;for(let a of n){if(!a.entry)continue;let l=y.get(a.entry.id)??[];l.push(a.path),y.set(a.entry.id,l),u.has(a.entry.id)||u.set(a.entry.id,a.entry)}let v=new Map([...y].filter(([,a])=>a.length>1)),o=(0,g.a)().createHash("sha1");for(let a of n)o.update(`${a.path}\0${a.mtimeMs}\0${a.ctimeMs}\0${a.size}\0${a.ino}
`);let m={dir:e,items:n,byId:u,duplicates:v,fingerprint:o.digest("hex"),reparsed:c};return(0,O.d)(e,"catalog",{...m,reparsed:[]}),m}function F(e){let t=[];for(let s of e.items){t.push(...s.problems);let r=s.entry;if(r)for(let i of r.links)e.byId.has(i.to)||t.push({rule:"link-dangling",message:`link ${i.rel} \u2192 ${i.to}: no entry has that id`,file:s.path,line:2,id:r.id})}for(let[s,r]of e.duplicates)for(let i of r)t.push({rule:"id-duplicate",message:`id ${s} is claimed by ${r.length} files: ${r.join(", ")}`,file:i,line:2,id:s});return t}function j(e){let t=s=>s.updated??s.created??"";return[...e].sort((s,r)=>t(s)<t(r)?1:t(s)>t(r)?-1:s.id<r.id?1:-1)}
