import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a as n}from"./chunk-SWOVPSWB.js";function t(e,i,r=process.cwd()){return n(e?.trim()||"claude",i,r)}export{t as a};
