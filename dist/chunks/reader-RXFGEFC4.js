import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b}from"./chunk-A7SP6A4V.js";import"./chunk-V3WNVJDY.js";import"./chunk-3UE5LRQW.js";import"./chunk-A6GBM2XZ.js";import"./chunk-WOMH7CNL.js";import"./chunk-OM3NNH33.js";import"./chunk-FUAXPYMC.js";import"./chunk-ZHHVG47C.js";export{a as ObjectReader,b as hasCommit};
