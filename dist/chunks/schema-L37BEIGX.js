import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d,e,f,g,h,i}from"./chunk-Y2OVPXMM.js";import"./chunk-ZHHVG47C.js";export{c as ACTIVITIES,d as ID_PATTERN,b as RELS,a as TYPES,i as idFromFileName,h as idTime,f as isValidHostKey,e as isValidId,g as newId};
