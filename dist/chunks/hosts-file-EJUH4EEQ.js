import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b}from"./chunk-R5RTHJGZ.js";import"./chunk-NZZZJ4LZ.js";import"./chunk-X7HPSLY6.js";import"./chunk-N42KQIYO.js";import"./chunk-P56FQ7LC.js";import"./chunk-ZHHVG47C.js";export{a as hostsFile,b as loadHosts};
