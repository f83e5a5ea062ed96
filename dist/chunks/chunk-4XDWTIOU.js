"use strict";
var W=Object.create;var z=Object.defineProperty;var H=Object.getOwnPropertyDescriptor;var K=Object.getOwnPropertyNames;var R=Object.getPrototypeOf,U=Object.prototype.hasOwnProperty;var Y=(e,t)=>{for(var s in t)z(e,s,{get:t[s],enumerable:!0})},D=(e,t,s,r)=>{if(t&&typeof t=="object"||typeof t=="function")for(let i of K(t))!U.call(e,i)&&i!==s&&z(e,i,{get:()=>t[i],enumerable:!(r=H(t,i))||r.enumerable});return e};var k=(e,t,s)=>(s=e!=null?W(R(e)):{},D(t||!e||!e.__esModule?z(s,"default",{value:e,enumerable:!0}):s,e)),G=e=>D(z({},"__esModule",{value:!0}),e);var oe={};Y(oe,{a:()=>x,b:()=>E,c:()=>F,d:()=>L,e:()=>T});module.exports=G(oe);var v=require("./chunk-JNDZWBK3.js"),N=require("./chunk-SQDBGZ7B.js"),w=require("./chunk-M732GK2R.js"),g=require("./chunk-5JNCPCFU.js"),P=require("./chunk-XCSNM4QW.js"),h=require("./chunk-2IRVL2T2.js"),_=require("./chunk-6DM7SX3K.js"),j=require("./chunk-PELGRCMF.js"),q=k(require("node:path")),M=k(require("node:fs")),J=256,Q=8,V=16*1024*1024,X=1e4,$=0,B=1,Z=2,ee=`
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
`;function te(e){let t=M.default.constants.O_NOFOLLOW;if(t===void 0||e.length===0)return;let s=new SharedArrayBuffer(12),r=new Int32Array(s),i,f,{MessageChannel:c,receiveMessageOnPort:d,Worker:b}=(0,g.e)();try{let l=new c;f=l.port1,i=new b(ee,{eval:!0,workerData:{paths:e.map(u=>u??""),flags:M.default.constants.O_RDONLY|t|M.default.constants.O_NONBLOCK,port:l.port2,shared:s,batch:J,ahead:Q,maxBytes:V},transferList:[l.port2]}),i.unref(),i.on("error",()=>{})}catch{return}let p=0,n,m=!1,y=()=>{m||(m=!0,f.close(),i.terminate())},O=()=>{let l=Atomics.load(r,B),u=Date.now()+X;for(;Atomics.load(r,$)<=l;){if(Atomics.load(r,Z)===1&&Atomics.load(r,$)<=l||Date.now()>u)return;Atomics.wait(r,$,l,100)}let a=d(f);if(!a)return;Atomics.add(r,B,1),Atomics.notify(r,B);let{sizes:o,bytes:A}=a.message;return{sizes:o,bytes:Buffer.from(A),at:0,i:0}};return{next(){if(m||p>=e.length)return;if(p++,(!n||n.i>=n.sizes.length)&&(n=O(),!n)){y();return}let l=n.sizes[n.i++];if(l<0)return;let u=n.bytes.subarray(n.at,n.at+l);return n.at+=l,p>=e.length&&y(),u},close:y}}var S=7,I=["id","title","type","tags","links","created","updated","url","appliesTo","kernel","host","aliases","rules","path","data","bodyLength","bodyLinks"];function se(e){let t=e.entry;return[e.path,e.id,e.mtimeMs,e.ctimeMs,e.size,e.ino,t?I.map(s=>t[s]):0,e.problems.length?e.problems:0]}function ae(e){let t;if(Array.isArray(e[6])){let s={};I.forEach((r,i)=>{e[6][i]!==void 0&&(s[r]=e[6][i])}),t=s}return{path:e[0],id:e[1],mtimeMs:e[2],ctimeMs:e[3],size:e[4],ino:e[5],entry:t,problems:Array.isArray(e[7])?e[7]:[]}}function C(e){return q.default.join((0,h.g)(e),"catalog.v8")}var re=512*1024*1024;function ie(e){try{let t=(0,_.e)(C(e),re);if(!t)return new Map;let s=(0,g.f)().deserialize(t);return s?.v!==S||!Array.isArray(s.items)?new Map:new Map(s.items.map(r=>[r[0],ae(r)]))}catch{return new Map}}function x(e,t,s,r,i){let f;try{f=(0,h.A)(e,t.path,i)}catch(p){let n=p;return{...t,problems:[{rule:"unreadable",message:n.message.replace(/^[^:]+:\d+: /,""),file:t.path,line:n.data?.line??1}]}}let{entry:c,problems:d}=s(f,t.path);if(!c)return{...t,problems:d};let b={...t,entry:(0,N.a)(c),problems:d};return r?.(b,f),b}var ne=2e3;async function E(e,t={}){let s=await(0,v.c)(e,"catalog");if(s)return s;let r=(0,w.a)(e),i=(0,h.p)(e);t.writeCache!==!1&&(0,w.e)(e)!==r&&(0,w.g)(e,r,i);let f=ie(e),c=[],d=i.filter(a=>{let o=f.get(a.path);return!(o&&(0,h.f)(o,a))});t.onParse?.(d.length);let b=d.length>0?(await Promise.resolve().then(()=>k(require("./entry-WTDZAW4Y.js")))).parseEntry:void 0,p=d.length>=ne?te(d.map(a=>(0,h.z)(e,a.path))):void 0,n;try{n=i.map(a=>{let o=f.get(a.path);return o&&(0,h.f)(o,a)?o.id===a.id?o:{...o,id:a.id}:(c.push(a.path),t.onProgress&&(c.length%250===0||c.length===d.length)&&t.onProgress(c.length,d.length),x(e,a,b,t.onText,p?.next()))})}finally{p?.close()}if(n.sort((a,o)=>a.path<o.path?-1:a.path>o.path?1:0),(c.length>0||f.size!==n.length)&&t.writeCache!==!1)try{(0,P.b)(C(e),(0,g.f)().serialize({v:S,items:n.map(se)}),{fsync:!1})}catch{}let m=new Map,y=new Map;for(let a of n){let o=a.entry?.id??((0,j.n)(a.path)?void 0:a.id||void 0);if(!o)continue;let A=y.get(o)??[];A.push(a.path),y.set(o,A),a.entry&&!m.has(o)&&m.set(o,a.entry)}let O=new Map([...y].filter(([,a])=>a.length>1)),l=(0,g.a)().createHash("sha1");for(let a of n)l.update(`${a.path}\0${a.mtimeMs}\0${a.ctimeMs}\0${a.size}\0${a.ino}
`);let u={dir:e,items:n,byId:m,duplicates:O,fingerprint:l.digest("hex"),reparsed:c};return(0,v.d)(e,"catalog",{...u,reparsed:[]}),u}function F(e){let t=[];for(let s of e.items){t.push(...s.problems);let r=s.entry;if(r)for(let i of r.links)e.byId.has(i.to)||t.push({rule:"link-dangling",message:`link ${i.rel} \u2192 ${i.to}: no entry has that id`,file:s.path,line:2,id:r.id})}for(let[s,r]of e.duplicates)for(let i of r)t.push({rule:"id-duplicate",message:`id ${s} is claimed by ${r.length} files: ${r.join(", ")}`,file:i,line:2,id:s});return t}function L(e,t){let s=e.updated??e.created??"",r=t.updated??t.created??"";return s<r?1:s>r?-1:e.id<t.id?1:-1}function T(e){return[...e].sort(L)}
