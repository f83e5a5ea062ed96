import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d}from"./chunk-AUBH4RWF.js";import"./chunk-J7YSDLB4.js";import"./chunk-IZVL2XKB.js";import"./chunk-VHMF5UH6.js";import"./chunk-OM3NNH33.js";import"./chunk-FUAXPYMC.js";import"./chunk-ZHHVG47C.js";export{a as diffTrees,c as mergeBases,b as newCommits,d as objectsToSend};
