import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b}from"./chunk-FGA4GE3G.js";import"./chunk-XA7SXE2V.js";import"./chunk-X7HPSLY6.js";import"./chunk-N42KQIYO.js";import"./chunk-SLY5WZRW.js";import"./chunk-ZHHVG47C.js";export{a as hostsFile,b as loadHosts};
