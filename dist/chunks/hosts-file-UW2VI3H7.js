import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b}from"./chunk-ZTL7Y5N2.js";import"./chunk-4X6IP4VR.js";import"./chunk-X7HPSLY6.js";import"./chunk-N42KQIYO.js";import"./chunk-FUAXPYMC.js";import"./chunk-ZHHVG47C.js";export{a as hostsFile,b as loadHosts};
