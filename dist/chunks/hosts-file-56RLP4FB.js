import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b}from"./chunk-6JRFYHDD.js";import"./chunk-BDXCOVML.js";import"./chunk-FOCNDEHX.js";import"./chunk-N42KQIYO.js";import"./chunk-FUAXPYMC.js";import"./chunk-ZHHVG47C.js";export{a as hostsFile,b as loadHosts};
