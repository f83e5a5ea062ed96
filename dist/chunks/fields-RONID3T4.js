import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d,e}from"./chunk-BFZEORRF.js";import"./chunk-AZYDE5GJ.js";import"./chunk-36HIX7PN.js";import"./chunk-HJORIDZX.js";import"./chunk-32MCBPBP.js";import"./chunk-CTQG6ZJA.js";import"./chunk-ZHHVG47C.js";export{c as formatProblems,e as nowStamp,b as parseLinks,a as splitList,d as validateEntryText};
