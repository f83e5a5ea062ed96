import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a}from"./chunk-OKW6PNEL.js";import"./chunk-ZHHVG47C.js";export default a();
