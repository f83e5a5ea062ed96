import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b}from"./chunk-YIZ237XV.js";import"./chunk-ZHHVG47C.js";export{b as committedDirs,a as noteCommit};
