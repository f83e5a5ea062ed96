import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d,e,f}from"./chunk-AQQDWCRO.js";import"./chunk-FUAXPYMC.js";import"./chunk-ZHHVG47C.js";export{a as configFiles,d as defaultDataDir,e as readConfig,b as readConfigFile,c as resolveDataDir,f as writableConfigFile};
