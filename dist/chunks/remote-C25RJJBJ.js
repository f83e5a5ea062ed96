import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d,e,f,g,h}from"./chunk-LKRE4ITY.js";import"./chunk-FUAXPYMC.js";import"./chunk-ZHHVG47C.js";export{a as KEPT,d as authFor,e as httpClient,b as isHttpUrl,g as isRace,h as networkError,f as raceLost,c as redactUrl};
