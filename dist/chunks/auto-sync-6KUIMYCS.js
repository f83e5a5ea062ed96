import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{b as i}from"./chunk-OYT34WVQ.js";import"./chunk-ZHHVG47C.js";async function e(n){let t=i();if(t.length===0)return[];let{autoSyncAfterWrite:r}=await import("./sync-OXPPA6KV.js");return r(t,n.settings)}export{e as autoSyncCommitted};
