import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d,e,f,g,h,i}from"./chunk-32MCBPBP.js";import"./chunk-ZHHVG47C.js";export{c as ACTIVITIES,e as ID_PATTERN,b as RELS,a as TYPES,i as idFromFileName,d as isEntryType,g as isValidHostKey,f as isValidId,h as newId};
