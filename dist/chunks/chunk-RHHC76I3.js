import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
var y=new Set(["id","title","type","tags","links","created","updated","url","applies_to","kernel","host","aliases","rules"]);function d(n){let{body:r,data:o,...a}=n,t={};for(let[e,s]of Object.entries(o))y.has(e)||(t[e]=s);return{...a,data:t,bodyLength:r.length}}export{d as a};
