import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{f as a,g as b}from"./chunk-PKOAPIU4.js";import"./chunk-J7YSDLB4.js";import"./chunk-SX3MN5RI.js";import"./chunk-NAXRFBJN.js";import"./chunk-OM3NNH33.js";import"./chunk-FUAXPYMC.js";import"./chunk-ZHHVG47C.js";export{a as ObjectReader,b as hasCommit};
