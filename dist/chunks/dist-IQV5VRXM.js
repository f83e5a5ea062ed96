import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a}from"./chunk-36HIX7PN.js";import"./chunk-ZHHVG47C.js";export default a();
