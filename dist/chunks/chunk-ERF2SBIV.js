import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{b as e}from"./chunk-FUAXPYMC.js";var n=new TextDecoder("utf-8",{fatal:!0});function a(r,t){try{return n.decode(r).replace(/^\uFEFF/,"")}catch{throw new e("INVALID_ENTRY",`${t} is not valid UTF-8 text (invalid byte sequence); save it as UTF-8 and try again`,{file:t})}}export{a};
