/** The CLI process entry: run main with the process arguments. */
import { main } from './main.js';

await main(process.argv.slice(2));
