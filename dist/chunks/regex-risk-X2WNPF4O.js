import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a}from"./chunk-5E6UPPSX.js";import"./chunk-ZHHVG47C.js";export{a as regexRisk};
