// The public pages' own words in each language they are written in, English first. A page is in
// the language the reader's browser asks for (Accept-Language) among these, else English, as the
// documentation page is (src/openapi.ts documentPage): what the site's editors wrote (titles,
// descriptions, a status's reason) is shown as written.

export interface PageTexts {
  when: string;
  where: string;
  online: string;
  organizedBy: string;
  cost: string;
  filedUnder: string;
  /** Said right below the title of an event that does not happen as announced. */
  canceled: string;
  postponed: string;
  joinOnline: string;
  noLinkYet: string;
  addToCalendar: string;
  eventAsJson: string;
  address: string;
  phone: string;
  email: string;
  website: string;
  eventsToCome: string;
  noEventsToCome: string;
  venueAsJson: string;
  organizerAsJson: string;
  notFound: string;
  notFoundText: string;
}

export const PAGE_TEXTS = {
  en: {
    when: 'When',
    where: 'Where',
    online: 'Online',
    organizedBy: 'Organized by',
    cost: 'Cost',
    filedUnder: 'Filed under',
    canceled: 'Cancelled',
    postponed: 'Postponed',
    joinOnline: 'Join online',
    noLinkYet: 'The link to join is not published yet.',
    addToCalendar: 'Add to calendar (.ics)',
    eventAsJson: 'This event as JSON',
    address: 'Address',
    phone: 'Phone',
    email: 'E-mail',
    website: 'Website',
    eventsToCome: 'Events to come',
    noEventsToCome: 'No events to come.',
    venueAsJson: 'This venue as JSON',
    organizerAsJson: 'This organizer as JSON',
    notFound: 'Not found',
    notFoundText: 'There is no public page here. It may have been moved or unpublished.',
  },
  fr: {
    when: 'Quand',
    where: 'Où',
    online: 'En ligne',
    organizedBy: 'Organisé par',
    cost: 'Prix',
    filedUnder: 'Classé dans',
    canceled: 'Annulé',
    postponed: 'Reporté',
    joinOnline: 'Rejoindre en ligne',
    noLinkYet: "Le lien pour rejoindre l'événement n'est pas encore publié.",
    addToCalendar: 'Ajouter au calendrier (.ics)',
    eventAsJson: 'Cet événement en JSON',
    address: 'Adresse',
    phone: 'Téléphone',
    email: 'E-mail',
    website: 'Site web',
    eventsToCome: 'Événements à venir',
    noEventsToCome: 'Aucun événement à venir.',
    venueAsJson: 'Ce lieu en JSON',
    organizerAsJson: 'Cet organisateur en JSON',
    notFound: 'Page introuvable',
    notFoundText: "Il n'y a pas de page publique ici. Elle a peut-être été déplacée ou dépubliée.",
  },
  de: {
    when: 'Wann',
    where: 'Wo',
    online: 'Online',
    organizedBy: 'Veranstaltet von',
    cost: 'Preis',
    filedUnder: 'Abgelegt unter',
    canceled: 'Abgesagt',
    postponed: 'Verschoben',
    joinOnline: 'Online teilnehmen',
    noLinkYet: 'Der Link zur Teilnahme ist noch nicht veröffentlicht.',
    addToCalendar: 'Zum Kalender hinzufügen (.ics)',
    eventAsJson: 'Diese Veranstaltung als JSON',
    address: 'Adresse',
    phone: 'Telefon',
    email: 'E-Mail',
    website: 'Website',
    eventsToCome: 'Kommende Veranstaltungen',
    noEventsToCome: 'Keine kommenden Veranstaltungen.',
    venueAsJson: 'Dieser Veranstaltungsort als JSON',
    organizerAsJson: 'Dieser Veranstalter als JSON',
    notFound: 'Nicht gefunden',
    notFoundText:
      'Hier gibt es keine öffentliche Seite. Sie wurde vielleicht verschoben oder nicht mehr veröffentlicht.',
  },
  es: {
    when: 'Cuándo',
    where: 'Dónde',
    online: 'En línea',
    organizedBy: 'Organizado por',
    cost: 'Precio',
    filedUnder: 'Archivado en',
    canceled: 'Cancelado',
    postponed: 'Aplazado',
    joinOnline: 'Unirse en línea',
    noLinkYet: 'El enlace para unirse aún no se ha publicado.',
    addToCalendar: 'Añadir al calendario (.ics)',
    eventAsJson: 'Este evento en JSON',
    address: 'Dirección',
    phone: 'Teléfono',
    email: 'Correo electrónico',
    website: 'Sitio web',
    eventsToCome: 'Próximos eventos',
    noEventsToCome: 'No hay próximos eventos.',
    venueAsJson: 'Este lugar en JSON',
    organizerAsJson: 'Este organizador en JSON',
    notFound: 'No encontrado',
    notFoundText: 'Aquí no hay ninguna página pública. Puede que se haya movido o despublicado.',
  },
} satisfies Record<string, PageTexts>;

export type PageLanguage = keyof typeof PAGE_TEXTS;

/** The languages the pages are written in, English first: the one a reader asks for is chosen among them. */
export const PAGE_LANGUAGES = Object.keys(PAGE_TEXTS) as PageLanguage[];
