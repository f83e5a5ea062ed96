/** The CLI process entry: run main with the process arguments (main reports its own errors and exit code). */
import { main } from './main.js';

void main(process.argv.slice(2));
