// The words of the RSVP page (rsvp.ts) in the pages' languages (texts.ts PAGE_LANGUAGES).
import type { PageLanguage } from './texts.js';

export interface RsvpTexts {
  title: string;
  confirmIntro: string;
  confirm: string;
  statusIntro: string;
  going: string;
  waiting: string;
  pending: string;
  declined: string;
  cancelled: string;
  checked_in: string;
  guests: string;
  keepLink: string;
  cancel: string;
  cancelledNow: string;
  linkUsed: string;
  notNow: string;
}

export const RSVP_TEXTS: Record<PageLanguage, RsvpTexts> = {
  en: {
    title: 'Your RSVP',
    confirmIntro: 'Confirm your RSVP to this event:',
    confirm: 'Confirm my RSVP',
    statusIntro: 'Your RSVP to this event:',
    going: 'You are going: your place is kept.',
    waiting: 'You are on the waiting list: you will be told by e-mail if a place comes free.',
    pending: 'The organisers approve each RSVP: you will be told by e-mail.',
    declined: 'Your RSVP is declined.',
    cancelled: 'Your RSVP is cancelled.',
    checked_in: 'You are checked in.',
    guests: 'Guests',
    keepLink: 'Keep this page’s link to see or cancel your RSVP (it was sent to you by e-mail too):',
    cancel: 'Cancel my RSVP',
    cancelledNow: 'Your RSVP is cancelled.',
    linkUsed: 'This link does not work any more: it was used, or it expired. RSVP again to get a new one.',
    notNow: 'This cannot be done now:',
  },
  fr: {
    title: 'Votre réponse',
    confirmIntro: 'Confirmez votre réponse à cet événement :',
    confirm: 'Confirmer ma réponse',
    statusIntro: 'Votre réponse à cet événement :',
    going: 'Vous participez : votre place est réservée.',
    waiting: 'Vous êtes sur la liste d’attente : vous serez prévenu par e-mail si une place se libère.',
    pending: 'Les organisateurs valident chaque réponse : vous serez prévenu par e-mail.',
    declined: 'Votre réponse a été refusée.',
    cancelled: 'Votre réponse est annulée.',
    checked_in: 'Votre arrivée est enregistrée.',
    guests: 'Invités',
    keepLink:
      'Gardez le lien de cette page pour voir ou annuler votre réponse (il vous a aussi été envoyé par e-mail) :',
    cancel: 'Annuler ma réponse',
    cancelledNow: 'Votre réponse est annulée.',
    linkUsed:
      'Ce lien ne fonctionne plus : il a déjà servi ou il a expiré. Répondez à nouveau pour en recevoir un autre.',
    notNow: 'Ce n’est pas possible pour l’instant :',
  },
  de: {
    title: 'Ihre Zusage',
    confirmIntro: 'Bestätigen Sie Ihre Zusage zu dieser Veranstaltung:',
    confirm: 'Zusage bestätigen',
    statusIntro: 'Ihre Zusage zu dieser Veranstaltung:',
    going: 'Sie nehmen teil: Ihr Platz ist reserviert.',
    waiting: 'Sie stehen auf der Warteliste: Wird ein Platz frei, erhalten Sie eine E-Mail.',
    pending: 'Die Veranstalter bestätigen jede Zusage: Sie erhalten eine E-Mail.',
    declined: 'Ihre Zusage wurde abgelehnt.',
    cancelled: 'Ihre Zusage ist storniert.',
    checked_in: 'Sie sind eingecheckt.',
    guests: 'Gäste',
    keepLink:
      'Bewahren Sie den Link dieser Seite auf, um Ihre Zusage anzusehen oder zu stornieren (Sie haben ihn auch per E-Mail erhalten):',
    cancel: 'Zusage stornieren',
    cancelledNow: 'Ihre Zusage ist storniert.',
    linkUsed:
      'Dieser Link funktioniert nicht mehr: Er wurde schon benutzt oder ist abgelaufen. Sagen Sie erneut zu, um einen neuen zu erhalten.',
    notNow: 'Das ist gerade nicht möglich:',
  },
  es: {
    title: 'Tu respuesta',
    confirmIntro: 'Confirma tu respuesta a este evento:',
    confirm: 'Confirmar mi respuesta',
    statusIntro: 'Tu respuesta a este evento:',
    going: 'Asistes: tu plaza está reservada.',
    waiting: 'Estás en la lista de espera: te avisaremos por correo si queda una plaza libre.',
    pending: 'Los organizadores aprueban cada respuesta: te avisaremos por correo.',
    declined: 'Tu respuesta ha sido rechazada.',
    cancelled: 'Tu respuesta está cancelada.',
    checked_in: 'Tu llegada está registrada.',
    guests: 'Invitados',
    keepLink: 'Guarda el enlace de esta página para ver o cancelar tu respuesta (también te lo enviamos por correo):',
    cancel: 'Cancelar mi respuesta',
    cancelledNow: 'Tu respuesta está cancelada.',
    linkUsed: 'Este enlace ya no funciona: ya se usó o caducó. Responde de nuevo para recibir otro.',
    notNow: 'Ahora no es posible:',
  },
};
