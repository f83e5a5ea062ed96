import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d}from"./chunk-TUICIKWK.js";import"./chunk-LI4Z5OIG.js";import"./chunk-WMZD7ED7.js";import"./chunk-X7HPSLY6.js";import"./chunk-N42KQIYO.js";import"./chunk-P56FQ7LC.js";import"./chunk-ZHHVG47C.js";export{d as nowStamp,b as parseLinks,a as splitList,c as validateEntryText};
