/**
 * The customer's country for a checkout session, or undefined to let the server decide (a CDN's
 * country header, else the merchant's). An African region in the browser's languages wins, then
 * an African time zone; a US or GB language region only after them, since en-US is many
 * browsers' default wherever they are.
 */
import { AFRICAN_COUNTRIES } from '@tapline/shared/countries';

const AFRICAN: readonly string[] = AFRICAN_COUNTRIES;
const OTHER_SUPPORTED = ['US', 'GB'];
/** African IANA time zones and their countries (zones shared by several countries name the largest). */
const AFRICAN_ZONES: Record<string, string> = {
  'Africa/Abidjan': 'CI', 'Africa/Accra': 'GH', 'Africa/Addis_Ababa': 'ET', 'Africa/Algiers': 'DZ', 'Africa/Asmara': 'ER',
  'Africa/Bamako': 'ML', 'Africa/Bangui': 'CF', 'Africa/Banjul': 'GM', 'Africa/Bissau': 'GW', 'Africa/Blantyre': 'MW',
  'Africa/Brazzaville': 'CG', 'Africa/Bujumbura': 'BI', 'Africa/Cairo': 'EG', 'Africa/Casablanca': 'MA', 'Africa/Ceuta': 'MA',
  'Africa/Conakry': 'GN', 'Africa/Dakar': 'SN', 'Africa/Dar_es_Salaam': 'TZ', 'Africa/Djibouti': 'DJ', 'Africa/Douala': 'CM',
  'Africa/El_Aaiun': 'MA', 'Africa/Freetown': 'SL', 'Africa/Gaborone': 'BW', 'Africa/Harare': 'ZW', 'Africa/Johannesburg': 'ZA',
  'Africa/Juba': 'SS', 'Africa/Kampala': 'UG', 'Africa/Khartoum': 'SD', 'Africa/Kigali': 'RW', 'Africa/Kinshasa': 'CD',
  'Africa/Lagos': 'NG', 'Africa/Libreville': 'GA', 'Africa/Lome': 'TG', 'Africa/Luanda': 'AO', 'Africa/Lubumbashi': 'CD',
  'Africa/Lusaka': 'ZM', 'Africa/Malabo': 'GQ', 'Africa/Maputo': 'MZ', 'Africa/Maseru': 'LS', 'Africa/Mbabane': 'SZ',
  'Africa/Mogadishu': 'SO', 'Africa/Monrovia': 'LR', 'Africa/Nairobi': 'KE', 'Africa/Ndjamena': 'TD', 'Africa/Niamey': 'NE',
  'Africa/Nouakchott': 'MR', 'Africa/Ouagadougou': 'BF', 'Africa/Porto-Novo': 'BJ', 'Africa/Sao_Tome': 'ST', 'Africa/Tripoli': 'LY',
  'Africa/Tunis': 'TN', 'Africa/Windhoek': 'NA', 'Atlantic/Cape_Verde': 'CV', 'Indian/Antananarivo': 'MG', 'Indian/Comoro': 'KM',
  'Indian/Mahe': 'SC', 'Indian/Mauritius': 'MU', 'Indian/Mayotte': 'KM',
};

function regionOf(tag: string | undefined): string | undefined {
  const match = /^[a-z]{2,3}(?:[-_][A-Za-z]{4})?[-_]([A-Za-z]{2})\b/i.exec(tag ?? '');
  return match?.[1]?.toUpperCase();
}

export function detectCountry(): string | undefined {
  const regions = (navigator.languages?.length ? navigator.languages : [navigator.language]).map(regionOf);
  const african = regions.find((region) => region !== undefined && AFRICAN.includes(region));
  if (african) return african;
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && {}.hasOwnProperty.call(AFRICAN_ZONES, zone)) return AFRICAN_ZONES[zone];
  } catch {
    // No Intl time zone: fall through.
  }
  return regions.find((region) => region !== undefined && OTHER_SUPPORTED.includes(region));
}
