/** The datasets feature as the other features see it (CSV datasets that generate audio for every row): they import it through this file only. */
export { getDataset, listDatasetRows } from './repository.js';
