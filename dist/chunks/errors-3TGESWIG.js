import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d}from"./chunk-2PHYWACO.js";import"./chunk-ZHHVG47C.js";export{a as EXIT_CODES,b as KbError,c as formatProblems,d as isKbError};
